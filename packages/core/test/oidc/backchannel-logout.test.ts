// OpenID Connect Back-Channel Logout 1.0 as the relying party, against a real OpenID Provider: the IdP's
// own logout token (oidc-provider's back-channel logout, POSTed to a loopback receiver) ends exactly the
// local sessions of that provider session on every instance (memory stores sharing one notice bus), and
// every forged, replayed or malformed token is refused without ending anything.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../../src/accounts/memory-store.js'
import type { AuthenticationOutcome } from '../../src/authentication/outcome.js'
import { isPortcullisError } from '../../src/errors/portcullis-error.js'
import { LocalAccounts } from '../../src/local-accounts/local-accounts.js'
import { MemoryRateLimitStore } from '../../src/local-accounts/rate-limits/memory-rate-limit-store.js'
import { MemorySessionStore } from '../../src/local-accounts/sessions/memory-session-store.js'
import type { SessionSignIn } from '../../src/local-accounts/sign-in.js'
import { BackchannelLogout } from '../../src/oidc/backchannel-logout.js'
import { BACKCHANNEL_LOGOUT_EVENT } from '../../src/oidc/logout-token.js'
import { MemoryRevocationNotices } from '../../src/revocation/memory-revocation-notices.js'
import { cookiePair, requestSource, scryptHasher, testPasswordScreen } from '../support/local-accounts.js'
import { OidcFixture, PROVIDER } from './support/fixture.js'
import { DEFAULT_CLIENT } from './support/test-idp.js'

let fixture: OidcFixture
let receiver: Server
let receiverUrl: string
/** What the receiver answers oidc-provider's POSTs with. */
let handle: (form: URLSearchParams) => Promise<void> = async () => {}
const notices = new MemoryRevocationNotices()
const accounts = new MemoryAccountStore()
const sessions = new MemorySessionStore({ notices })
const rateLimits = new MemoryRateLimitStore()
const instance = () =>
  new LocalAccounts({
    profile: 'session',
    accounts,
    sessions,
    rateLimits,
    hasher: scryptHasher(),
    publicOrigin: 'https://app.example',
    passwordScreen: testPasswordScreen(),
    revocation: { notices, maxStalenessSeconds: 60 },
  })
const a = instance()
const b = instance()
const logout = (instanceOf: LocalAccounts) =>
  new BackchannelLogout({
    lifecycle: fixture.lifecycle,
    revokeSessions: (match) => instanceOf.revokeProviderSessions(match),
    replay: rateLimits,
  })

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      handle(new URLSearchParams(body)).then(
        () => response.writeHead(200).end(),
        () => response.writeHead(400).end(),
      )
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/auth/oauth/${PROVIDER}/backchannel-logout`
  fixture = await OidcFixture.create({
    idp: { clients: [{ ...DEFAULT_CLIENT, backchannelLogoutUri: receiverUrl }] },
  })
})
afterAll(async () => {
  await fixture.close()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
})

async function signedIn(subject: string) {
  const outcome = await fixture.signIn(subject)
  if ((await accounts.getAccount(outcome.accountId)) === null) {
    await accounts.createAccount({
      accountId: outcome.accountId,
      username: `user.${subject}`.toLowerCase(),
      passwordHash: '$test$x',
      now: new Date(),
    })
  }
  const signIn = (await a.establishSignIn({
    accountId: outcome.accountId,
    providerSession: outcome.identity,
  })) as SessionSignIn
  return { outcome, signIn }
}

async function kind(local: LocalAccounts, signIn: SessionSignIn) {
  const outcome = (await local.mechanisms[0]?.authenticate(
    requestSource({ cookie: cookiePair(signIn.setCookie) }),
  )) as AuthenticationOutcome
  return outcome.kind
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
    return 'accepted'
  } catch (error) {
    if (!isPortcullisError(error)) throw error
    return `${error.code}${'reason' in error ? `:${String(error.reason)}` : ''}`
  }
}

const now = () => Math.floor(Date.now() / 1000)

/** A valid logout token's claims for `sub`/`sid`, with `overrides` (undefined removes a claim). */
function claims(subject: string, sid: string | undefined, overrides: Record<string, unknown> = {}) {
  const all: Record<string, unknown> = {
    iss: fixture.idp.issuer,
    aud: DEFAULT_CLIENT.clientId,
    iat: now(),
    exp: now() + 120,
    jti: `jti-${Math.random().toString(36).slice(2)}`,
    sub: subject,
    ...(sid === undefined ? {} : { sid }),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...overrides,
  }
  for (const [key, value] of Object.entries(all)) if (value === undefined) delete all[key]
  return all
}

describe('back-channel logout from the real OpenID Provider', () => {
  it('the IdP names the ID token sid, and its own logout token ends that session on every instance', async () => {
    const first = await signedIn('bcl-alice')
    const second = await signedIn('bcl-alice') // another IdP session (the browser's cookies were cleared)
    const sid = first.outcome.identity.sessionId
    expect(sid).toEqual(expect.any(String))
    expect(second.outcome.identity.sessionId).not.toBe(sid)
    for (const signIn of [first.signIn, second.signIn]) expect(await kind(b, signIn)).toBe('authenticated')
    const handled: number[] = []
    handle = async (form) => {
      handled.push((await logout(a).handle({ provider: PROVIDER, form })).sessions)
    }
    await fixture.idp.backchannelLogout('bcl-alice', sid as string)
    expect(handled).toEqual([1])
    expect(await kind(a, first.signIn)).toBe('invalid')
    expect(await kind(b, first.signIn)).toBe('invalid')
    expect(await kind(b, second.signIn)).toBe('authenticated')
  })

  it('refuses the same logout token twice, also on another instance', async () => {
    const { outcome } = await signedIn('bcl-bob')
    const captured: URLSearchParams[] = []
    handle = async (form) => {
      captured.push(form)
      await logout(a).handle({ provider: PROVIDER, form })
    }
    await fixture.idp.backchannelLogout('bcl-bob', outcome.identity.sessionId as string)
    expect(captured).toHaveLength(1)
    expect(await rejection(logout(b).handle({ provider: PROVIDER, form: captured[0] }))).toBe(
      'oidc.logout_token.rejected:replayed',
    )
  })
})

describe('logout tokens that are refused', () => {
  let victim: Awaited<ReturnType<typeof signedIn>>
  let sid: string
  beforeAll(async () => {
    victim = await signedIn('bcl-carol')
    sid = victim.outcome.identity.sessionId as string
  })

  const cases: [string, () => Promise<string>, string][] = [
    [
      'a forged signature',
      async () => `${(await fixture.idp.signLogoutToken(claims('bcl-carol', sid))).slice(0, -6)}AAAAAA`,
      'signature',
    ],
    [
      'a token signed by another key under the IdP kid',
      async () => {
        const { privateKey } = await generateKeyPair('RS256')
        return new SignJWT(claims('bcl-carol', sid))
          .setProtectedHeader({ alg: 'RS256', kid: fixture.idp.signingKid, typ: 'logout+jwt' })
          .sign(privateKey)
      },
      'signature',
    ],
    [
      'alg none',
      async () => {
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
        return `${encode({ alg: 'none', kid: fixture.idp.signingKid })}.${encode(claims('bcl-carol', sid))}.AA`
      },
      'alg',
    ],
    [
      'HS256 keyed with the public key (algorithm confusion)',
      async () => {
        const { publicKey } = await generateKeyPair('RS256', { extractable: true })
        const secret = new TextEncoder().encode(JSON.stringify(await exportJWK(publicKey)))
        return new SignJWT(claims('bcl-carol', sid))
          .setProtectedHeader({ alg: 'HS256', kid: fixture.idp.signingKid })
          .sign(secret)
      },
      'alg',
    ],
    [
      'another audience',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { aud: 'someone-else' })),
      'aud',
    ],
    [
      'another issuer',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { iss: 'https://evil.example' })),
      'iss',
    ],
    [
      'no events claim',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { events: undefined })),
      'events',
    ],
    [
      'an events claim without the logout event',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { events: { 'urn:other': {} } })),
      'events',
    ],
    [
      'a logout event that is not an object',
      () =>
        fixture.idp.signLogoutToken(
          claims('bcl-carol', sid, { events: { [BACKCHANNEL_LOGOUT_EVENT]: true } }),
        ),
      'events',
    ],
    [
      'a nonce (an ID token is never a logout token)',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { nonce: 'n' })),
      'nonce',
    ],
    ['no jti', () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { jti: undefined })), 'jti'],
    ['no iat', () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { iat: undefined })), 'iat'],
    [
      'an iat in the future',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { iat: now() + 600 })),
      'iat-future',
    ],
    [
      'an iat too long ago',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { iat: now() - 3600 })),
      'iat-stale',
    ],
    [
      'an expired token',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid, { exp: now() - 600 })),
      'expired',
    ],
    [
      'neither sub nor sid',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', undefined, { sub: undefined })),
      'sub-and-sid-missing',
    ],
    [
      'an access-token typ',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid), { typ: 'at+jwt' }),
      'typ',
    ],
    [
      'an embedded jwk header',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid), { jwk: { kty: 'oct' } }),
      'header',
    ],
    [
      'an unknown kid',
      () => fixture.idp.signLogoutToken(claims('bcl-carol', sid), { kid: 'not-a-known-key' }),
      'key',
    ],
    ['not a JWT', async () => 'not.a.jwt', 'malformed'],
  ]

  it.each(cases)('%s', async (_name, token, reason) => {
    const form = new URLSearchParams({ logout_token: await token() })
    expect(await rejection(logout(a).handle({ provider: PROVIDER, form }))).toBe(
      `oidc.logout_token.rejected:${reason}`,
    )
    expect(await kind(b, victim.signIn)).toBe('authenticated')
  })

  it('refuses a form without exactly one logout_token', async () => {
    const twice = new URLSearchParams([
      ['logout_token', 'a'],
      ['logout_token', 'b'],
    ])
    expect(await rejection(logout(a).handle({ provider: PROVIDER, form: twice }))).toBe(
      'oidc.logout_token.rejected:logout_token-count',
    )
    expect(await rejection(logout(a).handle({ provider: PROVIDER, form: new URLSearchParams() }))).toBe(
      'oidc.logout_token.rejected:logout_token-count',
    )
    expect(await rejection(logout(a).handle({ provider: 'nobody', form: { logout_token: 'x' } }))).toBe(
      'oidc.provider.unknown:oidc.provider.unknown',
    )
  })

  it('a valid sub-only token ends every session of that subject from this issuer, and nothing else', async () => {
    const other = await signedIn('bcl-dave')
    const again = await signedIn('bcl-carol')
    const password = (await a.establishSignIn({ accountId: victim.outcome.accountId })) as SessionSignIn
    const token = await fixture.idp.signLogoutToken(claims('bcl-carol', undefined))
    const result = await logout(b).handle({
      provider: PROVIDER,
      form: new URLSearchParams({ logout_token: token }),
    })
    expect(result).toEqual({ provider: PROVIDER, sessions: 2 })
    expect(await kind(a, victim.signIn)).toBe('invalid')
    expect(await kind(a, again.signIn)).toBe('invalid')
    expect(await kind(a, password)).toBe('authenticated')
    expect(await kind(a, other.signIn)).toBe('authenticated')
  })
})
