import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../src/cli/run.js'
import { createPostgresClient, migrate, type PostgresClient, SEALED_COLUMNS } from '../src/index.js'

let database: TestDatabase
let client: PostgresClient
beforeAll(async () => {
  database = await createTestDatabase()
  client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
})
afterAll(async () => {
  await client?.close()
  await database?.close()
})

async function cli(argv: string[], extra: NodeJS.ProcessEnv = {}) {
  const out: string[] = []
  const err: string[] = []
  const env = { DATABASE_URL: database.connectionString, ...extra }
  const code = await runCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) })
  return { code, out, err }
}

const envelope = (version: string) => `pe1.${version}.${Buffer.from('sealed bytes').toString('base64url')}`

describe('portcullis-postgres protector', () => {
  it('refuses to count before the schema is migrated (exit 3), like status', async () => {
    const { code, err } = await cli(['protector', 'status'])
    expect(code).toBe(3)
    expect(err.join('\n')).toContain('pending migration(s): run portcullis-postgres migrate first')
    await migrate(client)
  })

  it('status on an empty database counts nothing and says how each column is counted', async () => {
    const { code, out } = await cli(['protector', 'status'])
    expect(code).toBe(0)
    expect(out).toContain('  (none)')
    expect(out).toContain('unreadable (not an envelope): 0')
    expect(out).toContain('  portcullis_totp_enrollments.sealed_secret: none')
    expect(out.filter((line) => line.startsWith('    counted by '))).toHaveLength(SEALED_COLUMNS.length)
  })

  it('status shows roles from the key ring, unreadable values apart, and warns of a version outside the ring', async () => {
    const insert =
      "insert into portcullis_totp_enrollments (account_id, sealed_secret, status, created_at) values ($1, $2, 'pending', now())"
    await client.pool.query(insert, ['a1', envelope('k.2031-02')])
    await client.pool.query(insert, ['a2', envelope('k.2031-01')])
    await client.pool.query(insert, ['a3', envelope('stray')])
    await client.pool.query(insert, ['a4', 'pe1.no-ciphertext'])
    await client.pool.query(insert, ['a5', 'plain text'])
    // Labels may hold dots: the last dot before the ciphertext ends the label (`k` is not `k.2031-01`).
    await client.pool.query(insert, ['a6', envelope('k')])
    await client.pool.query(insert, ['a7', 'pe1.bad label.AAAA'])
    const { code, out } = await cli(['protector', 'status', '--active-key', 'k.2031-02'], {
      PORTCULLIS_PROTECTOR_PREVIOUS_KEY_VERSION: 'k.2031-01, k.2030-12',
    })
    expect(code).toBe(0)
    expect(out.slice(0, 7)).toEqual([
      'envelopes by key version:',
      `  ${'k.2031-02'.padEnd(24)} active   1`,
      `  ${'k.2031-01'.padEnd(24)} retained 1`,
      `  ${'k.2030-12'.padEnd(24)} retained 0`,
      `  ${'k'.padEnd(24)} UNKNOWN  1`,
      `  ${'stray'.padEnd(24)} UNKNOWN  1`,
      'unreadable (not an envelope): 3',
    ])
    expect(out).toContain(
      '  portcullis_totp_enrollments.sealed_secret: k 1, k.2031-01 1, k.2031-02 1, stray 1, unreadable 3',
    )
    expect(out).toContain('warning: stray seals 1 envelope(s) but is not in the key ring given')
  })

  it('drop-retained names every retained key still in use and exits 4; a key in no envelope passes', async () => {
    const refused = await cli(['protector', 'drop-retained', 'k.2031-01', 'k.2030-12'])
    expect(refused.code).toBe(4)
    expect(refused.out).toEqual([
      'k.2030-12: no live envelope uses it; it can be removed from the retained keys',
    ])
    expect(refused.err.slice(0, 2)).toEqual([
      'refusing: k.2031-01 still seals 1 live envelope(s):',
      '  portcullis_totp_enrollments.sealed_secret: 1',
    ])
    const passes = await cli(['protector', 'drop-retained'], {
      PORTCULLIS_PROTECTOR_PREVIOUS_KEY_VERSION: 'k.2030-12',
    })
    expect(passes.code).toBe(0)
    expect(passes.out).toEqual([
      'k.2030-12: no live envelope uses it; it can be removed from the retained keys',
      'note: 3 stored value(s) are not envelopes at all; no key opens them (see protector status)',
    ])
  })

  it('refuses unclear requests with usage errors before touching the database', async () => {
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['protector'], {}, 'protector takes status or drop-retained'],
      [['protector', 'rotate'], {}, 'protector takes status or drop-retained'],
      [['protector', 'status', 'k1'], {}, 'protector status takes no key versions'],
      [['protector', 'drop-retained', 'bad version!'], {}, 'drop-retained must be key versions'],
      [['protector', 'status', '--active-key', 'a,b'], {}, '--active-key takes one key version'],
      [['status', 'extra'], {}, 'unexpected argument "extra"'],
    ]
    for (const [argv, env, message] of cases) {
      const { code, err } = await cli(argv, env)
      expect([code, err[0]?.includes(message)], argv.join(' ')).toEqual([2, true])
    }
    const active = await cli(['protector', 'drop-retained', 'k.2031-02'], {
      PORTCULLIS_PROTECTOR_KEY_VERSION: 'k.2031-02',
    })
    expect(active.code).toBe(2)
    expect(active.err[0]).toContain('k.2031-02 is the active key')
    const none = await cli(['protector', 'drop-retained'])
    expect(none.code).toBe(2)
    expect(none.err[0]).toContain('name the retained key version(s) to check')
  })
})
