import { randomBytes } from 'node:crypto'
import type { AuthenticationOutcome } from '@portcullis/core/authentication'
import { AuthorizationSnapshot } from '@portcullis/core/authorization'
import {
  IMPERSONATION_STEP_UP_PURPOSE,
  ImpersonationEvents,
  Impersonations,
} from '@portcullis/core/impersonation'
import type { SecurityEvent, SessionSignIn } from '@portcullis/core/local-accounts'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { StepUpService } from '@portcullis/core/step-up'
import { describe, expect, it } from 'vitest'
import { type PostgresClient, PostgresStepUpStore } from '../src/index.js'
import { instancesDatabase, postgresLocalAccounts, within } from './support/instances.js'

/**
 * Two app instances on one database, each with its own pool, revocation listener and a session cache that
 * trusts notices for up to 60 s, sharing the protector key: an impersonation started on A is verified on
 * B (its cookie is sealed, nothing else is shared), and the administrator's sign-out on A, or the end of
 * the impersonation on B, is refused on the other instance as soon as the notice arrives.
 */
const db = await instancesDatabase()

const PASSWORD = 'correct horse battery staple'
const protectorKey = new OAuthTransactionProtectorKey('k1', randomBytes(32))
const administrators = new Set<string>()

async function instance(client: PostgresClient) {
  const notices = await db.listening(client)
  const recorded: SecurityEvent[] = []
  const events = new ImpersonationEvents((event) => {
    recorded.push(event)
  })
  const local = postgresLocalAccounts(client, notices, { events: events.sink })
  const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client }) })
  const impersonations = new Impersonations({
    local,
    stepUp,
    protector: new AESGCMOAuthTransactionProtector({ activeKey: protectorKey }),
    authorizationResolver: ({ principal }) => ({
      capabilities: administrators.has(principal.id) ? ['accounts.impersonate'] : [],
    }),
    events,
  })
  const [mechanism] = impersonations.mechanisms(local.mechanisms)
  const authenticate = async (cookie: string) =>
    (await mechanism?.authenticate({
      header: (name) => (name === 'cookie' ? cookie : undefined),
      cookie: () => undefined,
      method: 'GET',
      path: '/',
    })) as AuthenticationOutcome
  return { local, stepUp, impersonations, authenticate, recorded }
}

const pair = (setCookie: string) => setCookie.split(';')[0] as string

async function setUp() {
  const a = await instance(db.client)
  const b = await instance(db.connect(4))
  const suffix = randomBytes(4).toString('hex')
  const admin = await a.local.register({ username: `admin.${suffix}`, password: PASSWORD })
  administrators.add(admin.accountId)
  const alice = await a.local.register({ username: `alice.${suffix}`, password: PASSWORD })
  const signIn = (await a.local.login(
    { username: `admin.${suffix}`, password: PASSWORD },
    { transport: 'session' },
  )) as SessionSignIn
  const start = async () => {
    const outcome = await a.authenticate(pair(signIn.setCookie))
    if (outcome.kind !== 'authenticated') throw new Error('the administrator is not signed in')
    const securityEpoch = outcome.evidence.attributes?.securityEpoch as number
    const administrator = {
      accountId: admin.accountId,
      securityEpoch,
      sessionHandle: signIn.handle,
      sessionId: signIn.sessionId,
    }
    const token = await a.stepUp.issue({
      accountId: admin.accountId,
      purpose: IMPERSONATION_STEP_UP_PURPOSE,
      securityEpoch,
      sessionBinding: signIn.handle,
    })
    return a.impersonations.start({
      administrator,
      snapshot: AuthorizationSnapshot.from({ capabilities: ['accounts.impersonate'] }),
      accountId: alice.accountId,
      reason: 'checking what the account sees',
      stepUpToken: token.reveal(),
    })
  }
  return { a, b, admin, alice, signIn, start }
}

describe('impersonation across two instances', () => {
  it('is verified on the other instance, and ends there when the administrator signs out', async () => {
    const { a, b, admin, alice, signIn, start } = await setUp()
    const started = await start()
    const cookie = started.setCookies.map(pair).join('; ')
    const onB = await b.authenticate(cookie)
    expect(onB.kind === 'authenticated' && onB.principal).toEqual({
      id: alice.accountId,
      kind: 'user',
      impersonator: { accountId: admin.accountId, impersonationId: started.impersonationId },
    })
    // Without its impersonation cookie, the session is refused on B too.
    expect((await b.authenticate(pair(started.setCookies[0] as string))).kind).toBe('invalid')
    await a.local.logout({ accountId: admin.accountId, credentials: { sessionHandle: signIn.handle } })
    const delay = await within(async () => (await b.authenticate(cookie)).kind !== 'authenticated', 5_000)
    expect(delay, 'B kept the impersonation after the administrator signed out').not.toBeNull()
    console.log(
      `impersonation refused on the other instance ${(delay as number).toFixed(0)} ms after the sign-out`,
    )
    // The notice, not the 60 s cache bound, ended it.
    expect(delay as number).toBeLessThan(1_000)
    expect(a.recorded.find((event) => event.type === 'impersonation.ended')).toMatchObject({
      actorId: admin.accountId,
      reason: 'administrator_signed_out',
      sessions: 1,
    })
  }, 60_000)

  it('ends on one instance when the administrator ends it on the other', async () => {
    const { a, b, admin, start } = await setUp()
    const started = await start()
    const cookie = started.setCookies.map(pair).join('; ')
    expect((await a.authenticate(cookie)).kind).toBe('authenticated')
    const onB = await b.authenticate(cookie)
    if (onB.kind !== 'authenticated') throw new Error('not verified on B')
    const ended = await b.impersonations.end({
      impersonator: onB.principal.impersonator,
      sessionHandle: onB.evidence.attributes?.sessionHandle as string,
      cookieHeader: cookie,
    })
    expect(ended.administratorId).toBe(admin.accountId)
    const delay = await within(async () => (await a.authenticate(cookie)).kind !== 'authenticated', 5_000)
    expect(delay, 'A kept the impersonation after it ended on B').not.toBeNull()
    expect(delay as number).toBeLessThan(1_000)
    // B's events of the impersonation session name the administrator, though B never started it.
    const revoked = b.recorded.find((event) => event.type === 'session.revoked')
    expect(revoked).toMatchObject({ actorId: admin.accountId, impersonationId: started.impersonationId })
  }, 60_000)
})
