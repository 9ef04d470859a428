import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../src/cli/run.js'
import { PostgresAccountStore, PostgresSecurityLog } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

// The operators' account commands of portcullis-postgres on a migrated database: search, show, disable,
// enable, sign-out and delete, each change written to the security log with the operator and the reason.
const db = await migratedDatabase()
afterAll(() => db.close())
const env = { DATABASE_URL: db.database.connectionString }
const store = new PostgresAccountStore({ client: db.client })
const log = new PostgresSecurityLog({ client: db.client })

async function cli(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) })
  return { code, out, err }
}

async function account(username: string): Promise<string> {
  const accountId = randomUUID()
  const passwordHash = `$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$${randomUUID()}`
  await store.createAccount({ accountId, username, passwordHash, now: new Date() })
  return accountId
}

describe('portcullis-postgres accounts', () => {
  it('searches by username and prefix, and shows one account', async () => {
    const alice = await account('cli-alice')
    await account('cli-albert')
    const exact = await cli('accounts', 'search', 'username', 'cli-alice')
    expect(exact.code).toBe(0)
    expect(exact.out).toEqual([`${alice}\tactive\tcli-alice\t-`, '1 found'])
    const prefix = await cli('accounts', 'search', 'prefix', 'CLI-AL', '--limit', '5')
    expect(prefix.out.map((line) => line.split('\t')[2])).toEqual(['cli-albert', 'cli-alice', undefined])
    const show = await cli('accounts', 'show', alice)
    expect(show.out[0]).toMatch(new RegExp(`^account ${alice} active epoch 1 since `))
    expect(show.out).toContain('method  password')
    const hash = (await store.findPassword({ accountId: alice }))?.passwordHash as string
    expect(show.out.join('\n')).not.toContain(hash)
  })

  it('disables, signs out, enables and deletes, each with an audit entry naming the operator and reason', async () => {
    const bob = await account('cli-bob')
    const run = (action: string) =>
      cli('accounts', action, bob, '--reason', 'ticket 99: abuse', '--actor', 'ops.jane')
    const disabled = await run('disable')
    expect(disabled.code).toBe(0)
    expect(disabled.out[0]).toBe(`${bob} disabled; epoch 2`)
    expect((await store.getAccount(bob))?.status).toBe('disabled')
    expect((await run('sign-out')).out[0]).toBe(`${bob} signed out everywhere; epoch 3`)
    expect((await run('enable')).out[0]).toBe(`${bob} active; epoch 3`)
    const page = await log.listForAccount({ accountId: bob, limit: 10 })
    expect(page.entries.map((entry) => entry.type)).toEqual([
      'administration.account_enabled',
      'administration.signed_out',
      'administration.account_disabled',
    ])
    for (const entry of page.entries) {
      expect(entry.actorId).toBe('cli:ops.jane')
      expect(entry.details.reasonText).toBe('ticket 99: abuse')
    }
    const deleted = await run('delete')
    expect(deleted.err).toEqual([])
    expect(deleted.code).toBe(0)
    expect(await store.getAccount(bob)).toBeNull()
    expect((await log.listForAccount({ accountId: bob, limit: 1 })).entries[0]?.type).toBe(
      'administration.account_deleted',
    )
    // The account is gone: exit code 5, nothing written.
    expect((await run('disable')).code).toBe(5)
  })

  it('refuses a change without a reason or an operator, and malformed searches, before touching anything', async () => {
    const carol = await account('cli-carol')
    const noReason = await cli('accounts', 'disable', carol, '--actor', 'ops')
    expect(noReason.code).toBe(2)
    expect(noReason.err[0]).toBe('accounts disable needs --reason')
    const noActor = await cli('accounts', 'disable', carol, '--reason', 'why')
    expect(noActor.code).toBe(2)
    const badActor = await cli('accounts', 'disable', carol, '--reason', 'why', '--actor', 'a b')
    expect(badActor.code).toBe(2)
    expect((await cli('accounts', 'search', 'nickname', 'x')).code).toBe(2)
    expect((await cli('accounts', 'frobnicate', carol)).code).toBe(2)
    const blank = await cli('accounts', 'disable', carol, '--reason', '   ', '--actor', 'ops')
    expect(blank.code).toBe(1)
    expect(blank.err[0]).toContain('administration.reason_required')
    expect((await store.getAccount(carol))?.status).toBe('active')
    expect((await log.listForAccount({ accountId: carol, limit: 1 })).entries).toEqual([])
  })
})
