import { randomBytes, randomUUID } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import type { ApiKeyStore } from '@portcullis/core/api-keys'
import type { OneTimeCodeStore } from '@portcullis/core/codes'
import type { RefreshTokenStore, SessionStore } from '@portcullis/core/local-accounts'
import type { MailOutboxStore } from '@portcullis/core/mail'
import { accounts as oauth } from '@portcullis/core/oauth'
import type { PasskeyChallengeStore, PasskeyStore } from '@portcullis/core/passkeys'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { StepUpStore } from '@portcullis/core/step-up'
import type { TotpStore } from '@portcullis/core/totp'
import type { StoreFixture } from '../local-accounts/fixture.js'
import { passwordHash, T0, unique, username } from '../local-accounts/fixture.js'

/**
 * An `AccountStore` for one case, with the protector its provider views seal tokens with. `peer`, when
 * given, is a second store over the same storage (another app instance). The stores that keep other data
 * of an account in the same schema (sessions, refresh-token families, step-up credentials, API keys, TOTP
 * enrollments, passkeys and passkey challenges), when given, are checked to lose that data when the
 * account is deleted.
 */
export interface AccountStoreFixture extends StoreFixture<AccountStore> {
  readonly protector: OAuthTransactionProtector
  readonly sessions?: SessionStore
  readonly refreshTokens?: RefreshTokenStore
  readonly stepUp?: StepUpStore
  readonly apiKeys?: ApiKeyStore
  readonly totp?: TotpStore
  readonly passkeys?: PasskeyStore
  readonly passkeyChallenges?: PasskeyChallengeStore
  /**
   * The outbox the store writes the `outbox` entries of change requests into (same storage, same
   * transaction). Without it the store must refuse requests that carry entries, changing nothing.
   */
  readonly outbox?: MailOutboxStore
  /**
   * The code store over the same storage, which `createAccount({ code })` writes into in the sign-up's
   * transaction (read back here through `consume`). Without it (and without `outbox`) the store must
   * refuse a sign-up that carries a code, creating nothing.
   */
  readonly codes?: OneTimeCodeStore
}

export type AccountStoreFactory = () => AccountStoreFixture | Promise<AccountStoreFixture>

export const ISSUER = 'https://idp.conformance.example/'

/** A provider view of `store` for a fresh provider name (so cases never meet each other's links). */
export function providerView(
  fixture: AccountStoreFixture,
  store: AccountStore = fixture.store,
  provider = `provider-${randomBytes(6).toString('hex')}`,
): oauth.OAuthAccountStore {
  return store.oauth({ provider, clientId: `client-${provider}`, protector: fixture.protector })
}

export function identityOf(
  view: oauth.OAuthAccountStore,
  subject = unique('subject'),
): oauth.ProviderIdentity {
  return { provider: view.provider, issuer: ISSUER, subject }
}

export const GRANT: oauth.ProviderGrantInput = {
  scopes: ['openid'],
  expiresAt: new Date(T0.getTime() + 3_600_000),
}

export function providerTokens(label = 'tokens'): oauth.ProviderTokenSet {
  return new oauth.ProviderTokenSet({
    accessToken: `access-${label}-${randomUUID()}`,
    refreshToken: `refresh-${label}-${randomUUID()}`,
    scopes: ['openid'],
    expiresAt: new Date(T0.getTime() + 3_600_000),
  })
}

/** A password account (one sign-in method); its id and username. */
export async function passwordAccount(store: AccountStore): Promise<{ accountId: string; username: string }> {
  const name = username()
  const accountId = unique('account')
  const outcome = await store.createAccount({
    accountId,
    username: name,
    passwordHash: passwordHash(),
    now: T0,
  })
  if (outcome.outcome !== 'created') throw new Error(`setup: createAccount answered ${outcome.outcome}`)
  return { accountId, username: name }
}

/** The account's sign-in methods as `password` and provider names, in listing order. */
export async function methodNames(store: AccountStore, accountId: string): Promise<string[]> {
  const methods = await store.listSignInMethods(accountId)
  return methods.map((method) => (method.kind === 'identity' ? method.provider : method.kind))
}
