import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { generatedMigrations } from '../src/migrations/generated.js'

const folders: string[] = []
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))))

async function drizzleFolder(entries: readonly { idx: number; tag: string; sql?: string }[]): Promise<URL> {
  const folder = await mkdtemp(join(tmpdir(), 'portcullis-generated-'))
  folders.push(folder)
  await mkdir(join(folder, 'meta'))
  await writeFile(
    join(folder, 'meta', '_journal.json'),
    JSON.stringify({
      version: '7',
      dialect: 'postgresql',
      entries: entries.map(({ idx, tag }) => ({ idx, tag })),
    }),
  )
  for (const entry of entries) await writeFile(join(folder, `${entry.tag}.sql`), entry.sql ?? '')
  return pathToFileURL(`${folder}/`)
}

describe('generated migrations', () => {
  it('skip the baseline and number the rest after the hand-written versions, in journal order', async () => {
    const folder = await drizzleFolder([
      { idx: 2, tag: '0002_add-index', sql: 'create index b on t (b);' },
      { idx: 0, tag: '0000_baseline', sql: 'create table t (a int);' },
      { idx: 1, tag: '0001_add-column', sql: 'alter table t add column b int;' },
    ])
    expect(generatedMigrations(5, folder)).toEqual([
      { version: 6, name: 'add-column', sql: 'alter table t add column b int;' },
      { version: 7, name: 'add-index', sql: 'create index b on t (b);' },
    ])
  })

  it('the committed folder holds the baseline and the generated migrations after it', () => {
    expect(generatedMigrations(5).map(({ version, name }) => ({ version, name }))).toEqual([
      { version: 6, name: 'one-account' },
      { version: 7, name: 'totp' },
      { version: 8, name: 'passkeys' },
      { version: 9, name: 'session-handle-tags' },
      { version: 10, name: 'oauth-server-entries' },
      { version: 11, name: 'store-lookup-indexes' },
    ])
  })

  it('refuses a malformed journal instead of skipping migrations', async () => {
    const folder = await drizzleFolder([{ idx: 0, tag: '../escape' }])
    expect(() => generatedMigrations(5, folder)).toThrow('drizzle journal entry is malformed')
  })
})
