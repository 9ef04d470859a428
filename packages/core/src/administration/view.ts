import type { EmailAddress } from '../accounts/email-requests.js'
import type { AccountStore } from '../accounts/port.js'
import type { Account, SignInMethod } from '../accounts/records.js'
import type { ApiKeyDirectory, ApiKeySummary } from '../api-keys/api-key-directory.js'
import type { ApiKeyStore } from '../api-keys/api-key-store.js'
import type { OAuthGrantSummary, OAuthGrants } from '../authorization-server/port.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { LocalSessionView } from '../local-accounts/sessions/session-view.js'
import type { SecurityLogEntry } from '../security-log/entry.js'
import type { SecurityLog } from '../security-log/port.js'

/** The API keys of the accounts (`ApiKeyStore` and `ApiKeyDirectory` over the same records). */
export interface AdministeredApiKeys {
  readonly store: ApiKeyStore
  readonly directory: ApiKeyDirectory
}

/** An account's second factors beside its passkeys (which are sign-in methods). */
export interface AdministeredFactors {
  readonly totp: boolean
  readonly passkeys: number
}

/** Everything an administrator sees of one account. Never a secret: no hash, digest, key or session id. */
export interface AdministeredAccount {
  readonly account: Account
  readonly username: string | null
  readonly emails: readonly EmailAddress[]
  readonly methods: readonly SignInMethod[]
  readonly factors: AdministeredFactors
  /** Live sessions by handle (never the session id). */
  readonly sessions: readonly LocalSessionView[]
  /** The account's own API keys (owner kind `user`), newest first; empty without `apiKeys`. */
  readonly apiKeys: readonly ApiKeySummary[]
  /** Apps the account connected through the authorization server; empty without `grants`. */
  readonly grants: readonly OAuthGrantSummary[]
  /** The newest entries of the account's security log, administrative acts included. */
  readonly recentEvents: readonly SecurityLogEntry[]
}

export interface ViewSources {
  readonly accounts: AccountStore
  readonly local: LocalAccounts
  readonly log: SecurityLog
  readonly apiKeys: AdministeredApiKeys | undefined
  readonly grants: OAuthGrants | undefined
  readonly totp: { isEnabled(accountId: string): Promise<boolean> } | undefined
  readonly recentEvents: number
}

/** Reads the account and everything of it in parallel (each read one indexed query); null when unknown. */
export async function administeredAccount(
  sources: ViewSources,
  accountId: string,
): Promise<AdministeredAccount | null> {
  const account = await sources.accounts.getAccount(accountId)
  if (account === null) return null
  const [methods, emails, sessions, apiKeys, grants, totp, log] = await Promise.all([
    sources.accounts.listSignInMethods(accountId),
    sources.accounts.listEmailAddresses(accountId),
    sources.local.listSessions(accountId),
    sources.apiKeys?.directory.listByOwner({ ownerId: accountId, ownerKind: 'user' }, { limit: 100 }) ?? [],
    sources.grants?.list(accountId) ?? [],
    sources.totp?.isEnabled(accountId) ?? false,
    sources.log.listForAccount({ accountId, limit: sources.recentEvents }),
  ])
  const password = methods.find((method) => method.kind === 'password')
  return Object.freeze({
    account,
    username: password?.kind === 'password' ? password.username : null,
    emails,
    methods,
    factors: Object.freeze({
      totp,
      passkeys: methods.filter((method) => method.kind === 'passkey').length,
    }),
    sessions: Object.freeze(sessions.map((session) => Object.freeze({ ...session, current: false }))),
    apiKeys: Object.freeze([...apiKeys]),
    grants: Object.freeze([...grants]),
    recentEvents: log.entries,
  })
}
