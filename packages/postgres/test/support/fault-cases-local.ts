import { randomUUID } from 'node:crypto'
import {
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

/** Cut cases for the local-account stores: accounts and invites, sessions, refresh tokens, rate limits. */
export function localAccountFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, direct, one, hex, session } = kit
  return [
    {
      name: 'password sign-up with an invite',
      table: 'portcullis_passwords',
      multiStatement: true,
      async prepare(client) {
        const invite = hex()
        const now = new Date()
        await new PostgresAccountStore({ client: db.client }).issueInvite({
          digest: invite,
          expiresAt: new Date(now.getTime() + 600_000),
          now,
        })
        const username = `fault-${randomUUID().slice(0, 12)}`
        const store = new PostgresAccountStore({ client })
        return {
          run: () =>
            store.createAccount({
              accountId: randomUUID(),
              username,
              passwordHash: '$argon2id$x',
              now,
              invite: { digest: invite },
            }),
          async check() {
            const account = await store.findPassword({ username })
            const left = await one<{ used: boolean }>(
              'select consumed_at is not null as used from portcullis_local_account_invites where digest = $1',
              [invite],
            )
            if (account === null) return left?.used ? partial('invite burned without account') : 'untouched'
            return left?.used ? 'written' : partial('account without invite use')
          },
        }
      },
    },
    {
      name: 'password change with an epoch bump',
      table: 'portcullis_passwords',
      multiStatement: true,
      async prepare(client) {
        const accountId = randomUUID()
        const now = new Date()
        await new PostgresAccountStore({ client: db.client }).createAccount({
          accountId,
          username: `fault-${randomUUID().slice(0, 12)}`,
          passwordHash: '$argon2id$old',
          now,
        })
        const store = new PostgresAccountStore({ client })
        return {
          run: () => store.setPassword({ accountId, passwordHash: '$argon2id$new', now, bumpEpoch: true }),
          async check() {
            const account = await store.findPassword({ accountId })
            if (account?.passwordHash === '$argon2id$new') {
              return account.securityEpoch === 2 ? 'written' : partial('password without epoch')
            }
            return account?.securityEpoch === 1 ? 'untouched' : partial('epoch without password')
          },
        }
      },
    },
    {
      name: 'email verification making the address primary, with an epoch bump',
      table: 'portcullis_email_addresses',
      multiStatement: true,
      async prepare(client) {
        const accountId = randomUUID()
        const now = new Date()
        const setup = new PostgresAccountStore({ client: db.client })
        await setup.createAccount({
          accountId,
          username: `fault-${randomUUID().slice(0, 12)}`,
          passwordHash: '$argon2id$old',
          now,
        })
        const [first, second] = [`first.${accountId}@fault.example`, `second.${accountId}@fault.example`]
        await setup.addEmailAddress({ accountId, address: first, now })
        await setup.verifyEmailAddress({ accountId, address: first, now })
        await setup.addEmailAddress({ accountId, address: second, now })
        const store = new PostgresAccountStore({ client })
        return {
          run: () => store.verifyEmailAddress({ accountId, address: second, now, makePrimary: true }),
          async check() {
            const list = await setup.listEmailAddresses(accountId)
            const epoch = (await setup.getAccount(accountId))?.securityEpoch
            const shape = list.map(
              (each) => `${each.address === first ? 'first' : 'second'}:${each.verified}:${each.primary}`,
            )
            if (list.length !== 2) return partial(`${list.length} addresses`)
            if (shape.join() === 'first:true:true,second:false:false' && epoch === 1) return 'untouched'
            if (shape.join() === 'second:true:true,first:true:false' && epoch === 2) return 'written'
            return partial(`${shape.join()} at epoch ${epoch}`)
          },
        }
      },
    },
    {
      name: 'session rotation (create replacing the old one)',
      table: 'portcullis_sessions',
      multiStatement: true,
      async prepare(client) {
        const old = session()
        await new PostgresSessionStore({ client: db.client }).create({ session: old })
        const next = session({ accountId: old.accountId })
        const store = new PostgresSessionStore({ client })
        return {
          run: () => store.create({ session: next, replaces: old.digest }),
          async check() {
            const [before, after] = [
              await store.get(old.digest, new Date()),
              await store.get(next.digest, new Date()),
            ]
            if (after === null) return before !== null ? 'untouched' : partial('old gone, new missing')
            return before === null ? 'written' : partial('both sessions live')
          },
        }
      },
    },
    {
      name: 'session revocation of every session but one',
      table: 'portcullis_sessions',
      multiStatement: false,
      async prepare(client) {
        const keep = session()
        const others = [session({ accountId: keep.accountId }), session({ accountId: keep.accountId })]
        const seed = new PostgresSessionStore({ client: db.client })
        for (const each of [keep, ...others]) await seed.create({ session: each })
        const store = new PostgresSessionStore({ client })
        return {
          run: () => store.revoke({ accountId: keep.accountId, all: true, exceptDigest: keep.digest }),
          async check() {
            const live = await store.list({ accountId: keep.accountId, now: new Date() })
            if (live.length === 1) return 'written'
            return live.length === 3 ? 'untouched' : partial(`${live.length} sessions left`)
          },
        }
      },
    },
    {
      name: 'refresh-token family creation and rotation',
      table: 'portcullis_refresh_tokens',
      multiStatement: true,
      async prepare(client) {
        const store = new PostgresRefreshTokenStore({ client })
        const familyId = randomUUID()
        const now = new Date()
        const first = hex()
        await new PostgresRefreshTokenStore({ client: db.client }).createFamily({
          familyId,
          accountId: 'acct-fault',
          securityEpoch: 1,
          createdAt: now,
          absoluteExpiresAt: new Date(now.getTime() + 86_400_000),
          token: { digest: first, expiresAt: new Date(now.getTime() + 3_600_000) },
        })
        const next = hex()
        return {
          run: () =>
            store.rotate({
              presentedDigest: first,
              next: { digest: next, expiresAt: new Date(now.getTime() + 3_600_000) },
              now,
            }),
          async check() {
            const rows = await direct(
              'select digest, rotated_at from portcullis_refresh_tokens where family_id = $1',
              [familyId],
            )
            const rotated = rows.rows.find((row) => row.digest === first)?.rotated_at !== null
            if (rows.rowCount === 1) return rotated ? partial('rotated without successor') : 'untouched'
            return rows.rowCount === 2 && rotated ? 'written' : partial('successor without rotation')
          },
        }
      },
    },
    {
      name: 'rate-limit consume',
      table: 'portcullis_rate_limits',
      multiStatement: false,
      async prepare(client) {
        const key = hex()
        const store = new PostgresRateLimitStore({ client })
        return {
          run: () => store.consume({ key, limit: 5, windowSeconds: 60, now: new Date() }),
          async check() {
            const row = await one('select 1 from portcullis_rate_limits where limit_key = $1', [key])
            return row === undefined ? 'untouched' : 'written'
          },
        }
      },
    },
  ]
}
