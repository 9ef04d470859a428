import { integerBetween, type OptionsShape } from '../errors/options.js'
import type { Instrumentation } from '../instrumentation/instrumentation.js'
import type { LocalAccountsOptions } from './local-accounts-options.js'
import type { SecurityNoticeSource } from './passwords/security-notices.js'
import type { SecondFactorGate } from './second-factor.js'

/** What `readOptions` checks of each `LocalAccountsOptions` member (kinds, ranges, required members). */
export const LOCAL_OPTIONS_CODE = 'local.invalid_config'
const SECONDS = (min: number, max: number) => ({
  kind: 'number' as const,
  code: LOCAL_OPTIONS_CODE,
  check: integerBetween(min, max),
})
const LIMIT = {
  kind: 'object' as const,
  shape: {
    limit: {
      required: true,
      kind: 'number' as const,
      code: LOCAL_OPTIONS_CODE,
      check: integerBetween(1, 1_000_000),
    },
    windowSeconds: {
      required: true,
      kind: 'number' as const,
      code: LOCAL_OPTIONS_CODE,
      check: integerBetween(1, 86_400),
    },
  },
}
export const MINUTE = 60
export const DAY = 86_400

export const LOCAL_ACCOUNTS_OPTIONS: OptionsShape<LocalAccountsOptions> = {
  profile: {
    required: true,
    kind: 'string',
    code: LOCAL_OPTIONS_CODE,
    check: (value) =>
      ['session', 'tokens', 'hybrid'].includes(value as string)
        ? undefined
        : 'must be session, tokens or hybrid',
  },
  accounts: { required: true, kind: 'object', code: LOCAL_OPTIONS_CODE },
  sessions: { kind: 'object', code: LOCAL_OPTIONS_CODE },
  refreshTokens: { kind: 'object', code: LOCAL_OPTIONS_CODE },
  rateLimits: { required: true, kind: 'object', code: LOCAL_OPTIONS_CODE },
  hasher: { required: true, kind: 'object', code: LOCAL_OPTIONS_CODE },
  hashing: { kind: 'object', code: LOCAL_OPTIONS_CODE },
  passwordRules: { kind: 'object', code: LOCAL_OPTIONS_CODE },
  passwordScreen: {
    required: true,
    kind: 'object',
    code: LOCAL_OPTIONS_CODE,
    hint: 'commonPasswordScreen() of @portcullis/password-blocklist, or a PasswordScreen of your own',
  },
  registration: {
    kind: 'string',
    code: LOCAL_OPTIONS_CODE,
    check: (value) =>
      ['open', 'invite-only', 'closed'].includes(value as string)
        ? undefined
        : 'must be open, invite-only or closed',
  },
  signInWith: {
    kind: 'array',
    elements: {
      kind: 'string',
      code: LOCAL_OPTIONS_CODE,
      check: (value) => (value === 'username' || value === 'email' ? undefined : 'must be username or email'),
    },
  },
  emailAddresses: { kind: 'object', shape: { foldLocalPartCase: { kind: 'boolean' } } },
  publicOrigin: { required: true, kind: 'string', code: LOCAL_OPTIONS_CODE },
  trustedOrigins: { kind: 'array', elements: { kind: 'string', code: LOCAL_OPTIONS_CODE } },
  session: {
    kind: 'object',
    shape: {
      cookie: { kind: 'object' },
      idleTimeoutSeconds: SECONDS(MINUTE, 30 * DAY),
      absoluteTimeoutSeconds: SECONDS(MINUTE, 400 * DAY),
      renewIntervalSeconds: SECONDS(1, 30 * DAY),
    },
  },
  tokens: {
    kind: 'object',
    shape: {
      ring: { required: true, kind: 'object', code: LOCAL_OPTIONS_CODE },
      issuer: { required: true, kind: 'string', code: LOCAL_OPTIONS_CODE },
      audience: { required: true, kind: 'string', code: LOCAL_OPTIONS_CODE },
      jwksUri: { required: true, kind: 'string', code: LOCAL_OPTIONS_CODE },
      accessTokenLifetimeSeconds: SECONDS(1, 7 * DAY),
      refreshTokenLifetimeSeconds: SECONDS(MINUTE, 400 * DAY),
      refreshFamilyLifetimeSeconds: SECONDS(MINUTE, 400 * DAY),
      allowInsecureLoopback: { kind: 'boolean' },
      shareBearerHeader: { kind: 'boolean' },
      verifiedTokenCacheEntries: SECONDS(0, 1_000_000),
    },
  },
  rateLimit: {
    kind: 'object',
    shape: {
      perAccount: LIMIT,
      perAddress: LIMIT,
      ipv6PrefixLength: { kind: 'number', code: LOCAL_OPTIONS_CODE, check: integerBetween(0, 128) },
    },
  },
  revocation: {
    kind: 'object',
    shape: {
      notices: {
        kind: 'object',
        code: LOCAL_OPTIONS_CODE,
        check: (value) =>
          typeof (value as { trusted?: unknown }).trusted === 'function' &&
          typeof (value as { subscribe?: unknown }).subscribe === 'function'
            ? undefined
            : 'must be a RevocationNotices (trusted, subscribe, publish)',
      },
      safetyTtlSeconds: SECONDS(1, 3600),
      maxStalenessSeconds: SECONDS(0, 60),
      maxCachedSessions: SECONDS(1, 1_000_000),
      maxCachedAccounts: SECONDS(1, 1_000_000),
    },
  },
  trustedProxies: { kind: 'array', elements: { kind: 'string' } },
  secondFactor: {
    kind: 'object',
    check: (value) =>
      typeof (value as SecondFactorGate).begin === 'function' &&
      typeof (value as SecondFactorGate).complete === 'function'
        ? undefined
        : 'must have begin and complete',
  },
  events: { kind: 'function' },
  securityNotices: {
    kind: 'object',
    check: (value) =>
      typeof (value as SecurityNoticeSource).entries === 'function' ? undefined : 'must have entries',
  },
  onEventSinkError: { kind: 'function' },
  instrumentation: {
    kind: 'object',
    check: (value) =>
      typeof (value as Instrumentation).rateLimitHit === 'function' ? undefined : 'must have rateLimitHit',
  },
  mechanismNames: {
    kind: 'object',
    shape: {
      session: { kind: 'string', code: LOCAL_OPTIONS_CODE },
      bearer: { kind: 'string', code: LOCAL_OPTIONS_CODE },
    },
  },
  clock: { kind: 'function' },
  randomBytes: { kind: 'function' },
}
