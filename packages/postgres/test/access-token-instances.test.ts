import { MemoryAccountStore } from '@portcullis/core/accounts'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { MemoryOAuthServerStore, oauthAccessTokens } from '@portcullis/core/authorization-server'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { afterAll, describe, expect, it } from 'vitest'
import { seedGrant } from '../../core/test/support/seed-grant.js'
import { PostgresRevocationNotices } from '../src/index.js'
import { AS_ISSUER, CLIENT_ID, RESOURCE, startTestAuthorizationServer } from './support/access-tokens.js'
import { migratedDatabase } from './support/database.js'

/**
 * Two app instances, each with its own pool, its own `PostgresRevocationNotices` listener and its own
 * `oauthAccessTokens` mechanism (and so its own grant-status cache), sharing one grant status source. A
 * grant ended on one side, or an account's grants, is refused by the other as soon as the notice arrives.
 */
const db = await migratedDatabase()
const as = await startTestAuthorizationServer()
const open: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const each of open.splice(0).reverse()) await each.close()
  await as.close()
  await db.close()
})

// The status source both instances read (the Postgres OAuth store takes its place once it exists). It
// sends no notices itself: the revocations below publish theirs through Postgres from instance A.
const accounts = new MemoryAccountStore()
const grants = new MemoryOAuthServerStore({ accounts })
let reads = 0
const countedGrants = {
  status: (grantId: string) => {
    reads += 1
    return grants.status(grantId)
  },
}

async function instance() {
  const notices = new PostgresRevocationNotices({ client: db.connect(2) })
  open.push(notices)
  await notices.start()
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: true })
  open.push(jwks)
  const mechanism = oauthAccessTokens({
    issuer: AS_ISSUER,
    resource: RESOURCE,
    jwksUri: as.jwksUri,
    jwks,
    grants: countedGrants,
    notices,
  })
  return { notices, mechanism }
}

async function grant() {
  const { accountId, grantId } = await seedGrant(
    { accounts, grants },
    { clientId: CLIENT_ID, resource: RESOURCE },
  )
  return { accountId, grantId, token: as.token(accountId, grantId) }
}

async function kind(mechanism: AuthenticationMechanism, token: string) {
  const source = {
    header: (name: string) => (name === 'authorization' ? `Bearer ${token}` : undefined),
    cookie: () => undefined,
    method: 'GET',
    path: '/mcp',
  }
  return (await mechanism.authenticate(source)).kind
}

/** Polls `b` until it refuses `token`; the milliseconds from `since`, or undefined after `timeoutMs`. */
async function refusedWithin(
  mechanism: AuthenticationMechanism,
  token: string,
  since: number,
  timeoutMs = 5_000,
): Promise<number | undefined> {
  while (performance.now() - since < timeoutMs) {
    if ((await kind(mechanism, token)) === 'invalid') return performance.now() - since
    await new Promise((resolve) => setImmediate(resolve))
  }
  return undefined
}

/** Waits until the listener vouches for its notices again (its heartbeat answered). */
async function trusted(notices: PostgresRevocationNotices): Promise<void> {
  const deadline = performance.now() + 10_000
  while (!notices.trusted()) {
    if (performance.now() > deadline) throw new Error('the listener never became trusted')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const median = (values: readonly number[]) =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number

describe('access tokens across instances (Postgres revocation notices)', () => {
  it('a grant revoked on one instance is refused by the other as soon as the notice arrives (well within 100 ms)', async () => {
    const a = await instance()
    const b = await instance()
    const elapsed: number[] = []
    for (let round = 0; round < 7; round += 1) {
      const { grantId, token } = await grant()
      const bystander = await grant()
      for (const each of [a, b]) {
        expect(await kind(each.mechanism, token)).toBe('authenticated')
        expect(await kind(each.mechanism, bystander.token)).toBe('authenticated')
      }
      // B answers from its cache: the grant ended in the store alone does not reach it. (A loaded machine
      // can delay B's heartbeat past its trust window, when B rightly reads the store: wait for trust.)
      await trusted(b.notices)
      await grants.revokeGrant(grantId)
      const before = reads
      expect(await kind(b.mechanism, token)).toBe('authenticated')
      expect(reads).toBe(before)

      const publishedAt = performance.now()
      await a.notices.publish({ kind: 'grant', grantId })
      const took = await refusedWithin(b.mechanism, token, publishedAt)
      expect(took).toBeDefined()
      elapsed.push(took as number)
      // A hears its own notice through the same channel, as every instance does.
      expect(await refusedWithin(a.mechanism, token, publishedAt)).toBeDefined()
      expect(await kind(b.mechanism, bystander.token)).toBe('authenticated')
    }
    // A notice crosses in milliseconds; the median keeps one descheduled round on a loaded machine
    // from failing the run, and every round must still arrive within a loaded machine's margin.
    expect(median(elapsed)).toBeLessThan(100)
    expect(Math.max(...elapsed)).toBeLessThan(2_000)
  })

  it('an account notice (sign out everywhere) drops every grant of the account on the other instance', async () => {
    const a = await instance()
    const b = await instance()
    const { accountId, grantId, token } = await grant()
    const second = `${grantId}-2`
    await grants.upsert({
      model: 'Grant',
      id: second,
      payload: { accountId, clientId: CLIENT_ID },
      expiresAt: new Date(Date.now() + 3_600_000),
    })
    const secondToken = as.token(accountId, second)
    for (const each of [token, secondToken]) expect(await kind(b.mechanism, each)).toBe('authenticated')
    await trusted(b.notices)
    await accounts.bumpSecurityEpoch({ accountId, now: new Date() })
    expect(await kind(b.mechanism, token)).toBe('authenticated') // cached until told
    const publishedAt = performance.now()
    await a.notices.publish({ kind: 'account', accountId })
    expect(await refusedWithin(b.mechanism, token, publishedAt)).toBeDefined()
    expect(await kind(b.mechanism, secondToken)).toBe('invalid')
  })
})
