import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { SecurityEvent, SecurityEventType } from '../local-accounts/security-events.js'
import { SecurityLogEntries } from './entries.js'
import { validateSecurityLogEntry } from './entry.js'
import { SecurityLogError } from './errors.js'

const at = new Date('2026-12-01T10:00:00.000Z')
const base = { accountId: 'acct-1', clientAddress: '203.0.113.9' }

/**
 * One event of every type with every field filled. The first case fails when `SecurityEventFields`
 * names a type that has no sample here (it reads the type names from the source).
 */
const SAMPLES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'login.succeeded': { ...base, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', amr: 'pwd otp' },
  'login.failed': { ...base, reason: 'bad_password' },
  'login.rate_limited': { ...base, retryAfterSeconds: 30 },
  'session.created': { ...base, sessionHandle: 'h-1' },
  'session.revoked': { ...base, sessionHandle: 'h-1', reason: 'logout' },
  'refresh.reuse_detected': { ...base, familyId: 'fam-1' },
  'password.changed': base,
  'epoch.bumped': { accountId: 'acct-1', epoch: 4, reason: 'password_changed' },
  'csrf.refused': { ...base, reason: 'csrf.token_mismatch', method: 'POST' },
  'step_up.issued': { accountId: 'acct-1', purpose: 'password-change', sessionHandle: 'h-1' },
  'step_up.consumed': { accountId: 'acct-1', purpose: 'password-change', sessionHandle: 'h-1' },
  'oauth.signed_in': { accountId: 'acct-1', provider: 'google', provisioned: true },
  'oauth.linked': { accountId: 'acct-1', provider: 'google', relinked: false },
  'oauth.unlinked': { accountId: 'acct-1', provider: 'google' },
  'oauth.scopes_upgraded': { accountId: 'acct-1', provider: 'google' },
  'oauth.tokens_revoked': { accountId: 'acct-1', provider: 'google', pending: false },
  'oauth.revalidated': { accountId: 'acct-1', provider: 'google' },
  'oauth.reauthenticated': { accountId: 'acct-1', provider: 'google', purpose: 'delete-account' },
  'oauth.backchannel_logout': { provider: 'google', sessions: 2 },
  'oauth.backchannel_logout_refused': { provider: 'google', reason: 'Signature Invalid!' },
  'account.password_added': base,
  'account.password_removed': base,
  'account.status_changed': { accountId: 'acct-1', status: 'disabled' },
  'account.deleted': { ...base, stagedRevocations: 1 },
  'totp.enabled': base,
  'totp.disabled': base,
  'totp.verified': { ...base, purpose: 'sign_in' },
  'totp.failed': { ...base, reason: 'replayed' },
  'totp.rate_limited': { ...base, retryAfterSeconds: 60 },
  'recovery_code.used': { ...base, remaining: 7 },
  'recovery_codes.regenerated': base,
  'second_factor.required': base,
  'passkey.registered': { accountId: 'acct-1', credentialId: 'cred-1' },
  'passkey.removed': { accountId: 'acct-1', credentialId: 'cred-1' },
  'passkey.used': { ...base, credentialId: 'cred-1', ceremony: 'sign_in' },
  'passkey.failed': { ...base, reason: 'verification_failed', credentialId: 'cred-1' },
  'passkey.counter_regressed': { ...base, credentialId: 'cred-1', storedCounter: 9, presentedCounter: 3 },
  'email.change_requested': base,
  'email.changed': base,
  'email.change_undone': base,
  'email.address_added': base,
  'email.address_removed': base,
  'sign_in_code.requested': { ...base, known: true },
  'sign_in_code.failed': { clientAddress: '203.0.113.9' },
  'sign_up.created': base,
  'sign_up.existing_address': base,
  'sign_up.refused': { reason: 'invite_invalid', clientAddress: '203.0.113.9' },
  'email.verification_sent': base,
  'email.verified': base,
  'email.verification_failed': { ...base, reason: 'exhausted' },
  'email.address_verified_listener_failed': { ...base, reason: 'organizations.unavailable' },
  'password_reset.requested': { ...base, known: false },
  'password_reset.second_factor_required': base,
  'password_reset.failed': { ...base, reason: 'pending_invalid' },
  'password_reset.completed': { ...base, signedIn: true },
  'impersonation.started': {
    ...base,
    actorId: 'admin-1',
    impersonationId: 'AbCdEfGhIjKlMnOpQrStUv',
    reason: 'ticket 4711: the invoice page is empty',
    sessionHandle: 'impersonateAbCdEfGhIjKAbCdEfGhIjKlMnOpQrStUv',
    expiresInSeconds: 1800,
  },
  'impersonation.ended': {
    ...base,
    actorId: 'admin-1',
    reason: 'ended_by_administrator',
    impersonationId: 'AbCdEfGhIjKlMnOpQrStUv',
    sessions: 1,
  },
  'organization.join_requested': {
    accountId: 'acct-1',
    organizationId: 'acme',
    requestId: 'AbCdEfGhIjKlMnOpQrStUv',
  },
  'organization.join_approved': {
    accountId: 'acct-1',
    actorId: 'owner-1',
    organizationId: 'acme',
    requestId: 'AbCdEfGhIjKlMnOpQrStUv',
    role: 'member',
  },
  'organization.join_declined': {
    accountId: 'acct-1',
    actorId: 'owner-1',
    organizationId: 'acme',
    requestId: 'AbCdEfGhIjKlMnOpQrStUv',
  },
}

/** The event types `SecurityEventFields` declares, read from its source. */
function declaredTypes(): string[] {
  const source = readFileSync(new URL('../local-accounts/security-events.ts', import.meta.url), 'utf8')
  const body = source.slice(source.indexOf('export interface SecurityEventFields'))
  const declared = body.slice(0, body.indexOf('\n}\n'))
  return [...declared.matchAll(/^ {2}'([a-z0-9_]+\.[a-z0-9_.]+)': /gm)].map((match) => match[1] as string)
}

const allEvents = (): SecurityEvent[] =>
  Object.entries(SAMPLES).map(([type, fields]) => ({ type, at, ...fields }) as SecurityEvent)

/** What a careless emitter might attach: none of it may reach the log. */
const SECRETS = {
  password: 'hunter2-secret',
  token: 'tok-secret-value',
  sessionId: 'sid-secret-value',
  cookie: '__Host-session=sid-secret-value',
  refreshToken: 'rt-secret-value',
  digest: 'digest-secret-value',
  code: '123456',
  secret: 'JBSWY3DPEHPK3PXP',
  username: 'typed-username',
}

describe('log entries from security events', () => {
  it('have a sample of every declared event type here', () => {
    const declared = declaredTypes()
    expect(declared.length).toBeGreaterThan(30)
    expect(declared.filter((type) => !(type in SAMPLES))).toEqual([])
    // A type-level check of the declared names this test's samples use.
    const known: readonly SecurityEventType[] = ['login.succeeded', 'passkey.counter_regressed']
    expect(known.every((type) => declared.includes(type))).toBe(true)
  })

  it('keep the account, reason, session handle, address and the non-secret fields of every event type', () => {
    const entries = new SecurityLogEntries()
    for (const event of allEvents()) {
      const entry = entries.entryOf(event)
      const fields = event as unknown as Record<string, unknown>
      expect(entry.type).toBe(event.type)
      expect(entry.at.getTime()).toBe(at.getTime())
      expect(entry.accountId).toBe(fields.accountId ?? null)
      expect(entry.sessionHandle).toBe(fields.sessionHandle ?? null)
      expect(entry.clientAddress).toBe(fields.clientAddress ?? null)
      // Every field of the event is somewhere in the entry: a column or a detail.
      for (const [name, value] of Object.entries(fields)) {
        if (['type', 'at', 'accountId', 'sessionHandle', 'clientAddress'].includes(name)) continue
        if (name === 'actorId') {
          expect(entry.actorId, event.type).toBe(value)
          continue
        }
        // The user agent becomes the parsed device (none without a parser), never a detail.
        if (name === 'userAgent') {
          expect(entry.details, event.type).not.toHaveProperty('userAgent')
          continue
        }
        const kept = name === 'reason' ? (entry.reason ?? entry.details.reasonText) : entry.details[name]
        expect(kept, `${event.type}.${name}`).toBe(value)
      }
    }
  })

  it('never carry a secret an event is given, for every event type', () => {
    const entries = new SecurityLogEntries({
      describeUserAgent: () => ({ browser: 'B', os: 'O', platform: 'P' }),
    })
    for (const event of allEvents()) {
      const entry = entries.entryOf({
        ...event,
        ...SECRETS,
        userAgent: 'Mozilla/5.0',
      } as unknown as SecurityEvent)
      const text = JSON.stringify(entry)
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(text, `${event.type} kept ${name}`).not.toContain(value)
        expect(Object.keys(entry.details), event.type).not.toContain(name)
      }
      expect(text).not.toContain('Mozilla')
    }
  })

  it('hash the client address with the key when asked, and never keep the address then', () => {
    const key = new Uint8Array(32).fill(7)
    const hashed = new SecurityLogEntries({ clientAddresses: { hashKey: key, keyVersion: 3 } })
    const one = hashed.entryOf({ type: 'login.succeeded', at, ...base })
    const two = hashed.entryOf({ type: 'login.succeeded', at, ...base })
    const other = new SecurityLogEntries({ clientAddresses: { hashKey: new Uint8Array(32).fill(8) } })
    expect(one.clientAddress).toBeNull()
    expect(one.clientAddressHash).toMatch(/^v3\.[A-Za-z0-9_-]{43}$/)
    expect(two.clientAddressHash).toBe(one.clientAddressHash)
    expect(hashed.hashAddress('203.0.113.10')).not.toBe(one.clientAddressHash)
    expect(other.entryOf({ type: 'login.succeeded', at, ...base }).clientAddressHash?.slice(3)).not.toBe(
      one.clientAddressHash?.slice(3),
    )
    expect(JSON.stringify(one)).not.toContain('203.0.113.9')
    const none = new SecurityLogEntries({ clientAddresses: 'none' }).entryOf({
      type: 'login.succeeded',
      at,
      ...base,
    })
    expect([none.clientAddress, none.clientAddressHash]).toEqual([null, null])
    expect(inspect(hashed)).not.toContain('7,7')
  })

  it('refuses a short hash key or a bad key version', () => {
    expect(() => new SecurityLogEntries({ clientAddresses: { hashKey: new Uint8Array(31) } })).toThrow(
      SecurityLogError,
    )
    expect(
      () => new SecurityLogEntries({ clientAddresses: { hashKey: new Uint8Array(32), keyVersion: 0 } }),
    ).toThrow(expect.objectContaining({ code: 'security_log.invalid_config' }))
  })

  it('record a parsed device, bounded and without control characters, and no device when the parser throws', () => {
    const long = new SecurityLogEntries({
      describeUserAgent: () => ({ browser: `Evil\r\nBrowser ${'x'.repeat(200)}`, os: '', platform: null }),
    })
    const entry = long.entryOf({ type: 'session.created', at, ...base, sessionHandle: 'h', userAgent: 'UA' })
    expect(entry.device?.browser).toMatch(/^EvilBrowser x+$/)
    expect(entry.device?.browser?.length).toBe(64)
    expect(entry.device?.os).toBeNull()
    const throwing = new SecurityLogEntries({
      describeUserAgent: () => {
        throw new Error('parser bug')
      },
    })
    expect(throwing.entryOf({ type: 'login.succeeded', at, ...base, userAgent: 'UA' }).device).toBeNull()
  })

  it('give every entry its own id', () => {
    const entries = new SecurityLogEntries()
    const ids = new Set(
      Array.from({ length: 500 }, () => entries.entryOf({ type: 'login.succeeded', at, ...base }).id),
    )
    expect(ids.size).toBe(500)
  })
})

describe('validateSecurityLogEntry', () => {
  const good = new SecurityLogEntries().entryOf({ type: 'login.failed', at, ...base, reason: 'bad_password' })

  it.each([
    ['a short id', { id: 'abc' }],
    ['an upper-case id', { id: 'ABCDEFGHIJKLMNOPQRST' }],
    ['a bad date', { at: new Date(Number.NaN) }],
    ['an undotted type', { type: 'login' }],
    ['a type with a line break', { type: 'login.ok\nx.y' }],
    ['an account id with a line break', { accountId: 'a\nb' }],
    ['an overlong account id', { accountId: 'a'.repeat(256) }],
    ['a reason with spaces', { reason: 'bad password' }],
    ['a nested detail', { details: { nested: { a: 1 } } }],
    ['an infinite detail', { details: { n: Number.POSITIVE_INFINITY } }],
    ['too many details', { details: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i])) }],
  ])('refuses %s with security_log.invalid_input', (_, change) => {
    expect(() => validateSecurityLogEntry({ ...good, ...change } as never)).toThrow(
      expect.objectContaining({ code: 'security_log.invalid_input' }),
    )
  })
})
