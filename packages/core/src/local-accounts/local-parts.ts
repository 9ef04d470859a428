import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { AccountEpochs } from './account-epochs.js'
import type { LocalAccountsOptions } from './local-accounts-options.js'
import { localSettings } from './local-settings.js'
import { digestOpaqueToken } from './opaque-token.js'
import { type BoundedPasswordHasher, boundedPasswordHasher } from './passwords/bounded-password-hasher.js'
import { dummyHash } from './passwords/dummy-hash.js'
import { passwordRules } from './passwords/password.js'
import type { PasswordFlowParts } from './passwords/password-flows.js'
import { parseTrustedProxies, type TrustedProxies } from './rate-limits/client-address.js'
import { LoginThrottle } from './rate-limits/login-throttle.js'
import { type LocalRuntime, localRuntime } from './runtime.js'
import { SessionOperations } from './session-operations.js'
import { type CsrfSessionLookup, LocalCsrf } from './sessions/local-csrf.js'
import { type SessionCookie, sessionCookie } from './sessions/session-cookie.js'
import { SessionManager } from './sessions/session-manager.js'
import { CSRF_TOKEN_HEADER, sessionMechanism } from './sessions/session-mechanism.js'
import type { SessionStore } from './sessions/session-store.js'
import type { LocalRequestInfo } from './sign-in.js'
import { SignIns } from './sign-ins.js'
import { accessTokenMechanism } from './tokens/access-token-mechanism.js'
import { TokenManager } from './tokens/token-manager.js'

/**
 * Hashes allowed at once when the application passes an unbounded hasher: half the cores (at least one),
 * so password hashing never takes every core from the event loop.
 */
function defaultHashingConcurrency(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2))
}

/** What `LocalAccounts` is built from: the runtime, the password flows, and the profile's mechanisms. */
export interface LocalParts {
  readonly runtime: LocalRuntime
  readonly hasher: BoundedPasswordHasher
  readonly flows: PasswordFlowParts
  readonly proxies: TrustedProxies
  readonly sessionCookie: SessionCookie | undefined
  readonly csrf: LocalCsrf
  readonly sessions: SessionManager | undefined
  readonly tokens: TokenManager | undefined
  readonly sessionMechanismName: string | undefined
  readonly bearerMechanismName: string | undefined
  readonly mechanisms: readonly AuthenticationMechanism[]
}

/** Builds the parts of `LocalAccounts` from checked options: the profile decides which mechanisms exist. */
export function localParts(options: LocalAccountsOptions): LocalParts {
  const settings = localSettings(options)
  const clock = options.clock ?? Date.now
  const random = options.randomBytes ?? nodeRandomBytes
  const runtime = localRuntime({
    settings,
    clock,
    random,
    loadEpoch: async (accountId) => (await options.accounts.getAccount(accountId))?.securityEpoch ?? null,
    notices: options.revocation?.notices,
    sink: options.events,
    onSinkError: options.onEventSinkError,
  })
  const given = options.hasher as Partial<BoundedPasswordHasher>
  const hasher =
    typeof given.load === 'function'
      ? (options.hasher as BoundedPasswordHasher)
      : boundedPasswordHasher(options.hasher, {
          concurrency: defaultHashingConcurrency(),
          ...options.hashing,
        })
  const flows: PasswordFlowParts = {
    accounts: options.accounts,
    hasher,
    dummy: dummyHash(hasher, { randomBytes: random }),
    throttle: new LoginThrottle(options.rateLimits, {
      perAccount: settings.perAccount,
      perAddress: settings.perAddress,
      ipv6PrefixLength: settings.ipv6PrefixLength,
      clock,
      instrumentation: options.instrumentation,
    }),
    rules: passwordRules(options.passwordRules ?? {}),
    screen: options.passwordScreen,
    runtime,
    notices: options.securityNotices,
  }
  const names = options.mechanismNames ?? {}
  const mechanisms: AuthenticationMechanism[] = []
  const cookie =
    options.profile !== 'tokens' && options.sessions !== undefined
      ? sessionCookie({ publicOrigin: options.publicOrigin, ...(options.session?.cookie ?? {}) })
      : undefined
  const csrf = new LocalCsrf({
    publicOrigin: options.publicOrigin,
    trustedOrigins: options.trustedOrigins ?? [],
    sessionCookie: cookie,
    runtime,
    // A refusal names the session of its cookie: a read of the store, never a renewal.
    ...(cookie === undefined || options.sessions === undefined
      ? {}
      : { sessionOf: sessionLookup(options.sessions, clock) }),
  })
  let sessions: SessionManager | undefined
  let sessionMechanismName: string | undefined
  if (cookie !== undefined && options.sessions !== undefined) {
    sessions = new SessionManager(options.sessions, cookie, runtime)
    sessionMechanismName = names.session ?? 'session'
    mechanisms.push(
      sessionMechanism({
        name: sessionMechanismName,
        sessions,
        csrf: (source, sessionId) =>
          csrf.check({
            method: source.method,
            secFetchSite: source.header('sec-fetch-site'),
            origin: source.header('origin'),
            presentedToken: source.header(CSRF_TOKEN_HEADER),
            sessionId,
          }),
      }),
    )
  }
  let tokens: TokenManager | undefined
  let bearerMechanismName: string | undefined
  if (options.profile !== 'session' && options.tokens !== undefined && options.refreshTokens !== undefined) {
    tokens = new TokenManager(options.tokens, options.refreshTokens, options.accounts, runtime)
    bearerMechanismName = names.bearer ?? 'bearer'
    mechanisms.push(
      accessTokenMechanism({
        name: bearerMechanismName,
        tokens,
        epochs: runtime.epochs,
        shareBearerHeader: options.tokens.shareBearerHeader === true,
      }),
    )
  }
  if (sessionMechanismName !== undefined && sessionMechanismName === bearerMechanismName) {
    throw new ConfigurationError(
      'local.invalid_config',
      'the session and bearer mechanisms need different names',
    )
  }
  return {
    runtime,
    hasher,
    flows,
    proxies: parseTrustedProxies(options.trustedProxies ?? []),
    sessionCookie: cookie,
    csrf,
    sessions,
    tokens,
    sessionMechanismName,
    bearerMechanismName,
    mechanisms: Object.freeze(mechanisms),
  }
}

/** The account and handle of the live session a session id names (a store read, nothing renewed). */
function sessionLookup(store: SessionStore, clock: () => number): CsrfSessionLookup {
  return async (sessionId) => {
    const session = await store.get(digestOpaqueToken(sessionId), new Date(clock()))
    return session === null ? null : { accountId: session.accountId, handle: session.handle }
  }
}

/** The operations `LocalAccounts` delegates to: sign-ins, epoch moves, and sessions and tokens once issued. */
export function localServices(
  options: LocalAccountsOptions,
  parts: LocalParts,
  clientAddress: (info: LocalRequestInfo | undefined) => string | undefined,
): { readonly signIns: SignIns; readonly epochs: AccountEpochs; readonly operations: SessionOperations } {
  const transports = { sessions: parts.sessions, tokens: parts.tokens }
  const signIns = new SignIns({
    profile: options.profile,
    accounts: options.accounts,
    runtime: parts.runtime,
    flows: parts.flows,
    secondFactor: options.secondFactor,
    ...transports,
    clientAddress,
  })
  const epochs = new AccountEpochs({
    accounts: options.accounts,
    runtime: parts.runtime,
    ...transports,
    clientAddress,
  })
  const operations = new SessionOperations({ profile: options.profile, ...transports, epochs, clientAddress })
  return { signIns, epochs, operations }
}
