import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { DRIZZLE_MODULE, readDrizzleFolder, renderDrizzleModule } from '../scripts/drizzle-module.js'
import { DRIZZLE_MIGRATIONS } from '../src/migrations/drizzle-migrations.js'
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
    expect(generatedMigrations(5, readDrizzleFolder(folder))).toEqual([
      { version: 6, name: 'add-column', sql: 'alter table t add column b int;' },
      { version: 7, name: 'add-index', sql: 'create index b on t (b);' },
    ])
  })

  it('the compiled-in journal holds the baseline and the generated migrations after it', () => {
    expect(generatedMigrations(5).map(({ version, name }) => ({ version, name }))).toEqual([
      { version: 6, name: 'one-account' },
      { version: 7, name: 'totp' },
      { version: 8, name: 'passkeys' },
      { version: 9, name: 'session-handle-tags' },
      { version: 10, name: 'oauth-server-entries' },
      { version: 11, name: 'store-lookup-indexes' },
      { version: 12, name: 'email-addresses' },
      { version: 13, name: 'one-time-codes' },
      { version: 14, name: 'mail-outbox' },
      { version: 15, name: 'security-log' },
      { version: 16, name: 'account-search' },
      { version: 17, name: 'organizations' },
      { version: 18, name: 'organization-domains' },
      { version: 19, name: 'session-active-organization' },
      { version: 20, name: 'domain-enrolled-by' },
      { version: 21, name: 'join-requests' },
    ])
  })

  it('name no schema: every table they create or reference is in the schema the client is set to', () => {
    // drizzle-kit writes `REFERENCES "public"."t"` for a foreign key; the schema option would then point
    // at a table that is not there (or at another schema's).
    const naming = generatedMigrations(5).filter((migration) => /"public"\./i.test(migration.sql))
    expect(naming.map((migration) => migration.name)).toEqual([])
  })

  it('refuses a malformed journal instead of skipping migrations, before reading any file', async () => {
    const folder = await drizzleFolder([{ idx: 0, tag: '../escape' }])
    expect(() => readDrizzleFolder(folder)).toThrow('drizzle journal entry is malformed')
    expect(() => generatedMigrations(5, [{ idx: 1, tag: '../escape', sql: '' }])).toThrow(
      'drizzle journal entry is malformed',
    )
    expect(() => generatedMigrations(5, [{ idx: -1, tag: '0001_x', sql: '' }])).toThrow(
      'drizzle journal entry is malformed',
    )
  })
})

describe('the compiled-in migrations (src/migrations/drizzle-migrations.ts)', () => {
  it('hold exactly the journal and the SQL files of drizzle/, byte for byte', () => {
    const onDisk = readDrizzleFolder()
    expect(onDisk.length).toBeGreaterThan(1)
    expect(DRIZZLE_MIGRATIONS).toEqual(onDisk)
  })

  it('are the module the generator writes from drizzle/ (run `pnpm db:module` after a change)', async () => {
    expect(await readFile(fileURLToPath(DRIZZLE_MODULE), 'utf8')).toBe(
      renderDrizzleModule(readDrizzleFolder()),
    )
  })

  it('keep SQL that a template literal would change: backslashes, backticks, ${ and carriage returns', async () => {
    const placeholder = '$'.concat('{y}')
    const sql = `select E'a\\\\b', \`x\`, '${placeholder}', '\\${placeholder}';\r\nselect 1;\rselect '\\\`';\n`
    const folder = await drizzleFolder([{ idx: 0, tag: '0000_tricky', sql }])
    const source = renderDrizzleModule(readDrizzleFolder(folder))
    const file = join(fileURLToPath(folder), 'module.ts')
    await writeFile(file, source.replace(/^import type .*$/m, ''))
    const loaded = (await import(pathToFileURL(file).href)) as { DRIZZLE_MIGRATIONS: { sql: string }[] }
    expect(loaded.DRIZZLE_MIGRATIONS[0]?.sql).toBe(sql)
  })
})
