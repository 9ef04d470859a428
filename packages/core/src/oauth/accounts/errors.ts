import {
  type ErrorClass,
  PortcullisError,
  type PortcullisErrorOptions,
} from '../../errors/portcullis-error.js'

/**
 * Stable codes of the OAuth account domain. HTTP adapters map the error class: invalid-input 400,
 * forbidden 403, conflict 409, unavailable 503.
 */
export const OAuthAccountErrorCodes = {
  /** Blank or oversized id, malformed scope, invalid or timezone-less date, foreign provider. */
  invalidInput: 'oauth.account.invalid_input',
  /** The local account named by the request does not exist. */
  unknownAccount: 'oauth.account.unknown_account',
  /** Login with an identity no account is linked to, while provisioning is off. */
  unknownIdentity: 'oauth.account.unknown_identity',
  /** The identity is linked to another account, or the account already has an identity for the provider. */
  linkConflict: 'oauth.account.link_conflict',
  /** Scope upgrade of a link the account does not own. */
  linkNotFound: 'oauth.account.link_not_found',
  /** Scope upgrade whose callback identity is not the linked identity. */
  identityMismatch: 'oauth.account.identity_mismatch',
  /** Retained tokens could not be sealed or opened (protector failure, tampered or moved envelope). */
  vaultUnavailable: 'oauth.vault.unavailable',
  /** The provider's token or revocation endpoint failed or answered something malformed. */
  providerUnavailable: 'oauth.provider.unavailable',
  /** Concurrent writers kept moving the token version; the operation gave up. */
  tokensRaced: 'oauth.tokens.raced',
} as const

export type OAuthAccountErrorCode = (typeof OAuthAccountErrorCodes)[keyof typeof OAuthAccountErrorCodes]

const CLASS_OF: Readonly<Record<OAuthAccountErrorCode, ErrorClass>> = {
  'oauth.account.invalid_input': 'invalid-input',
  'oauth.account.unknown_account': 'invalid-input',
  'oauth.account.unknown_identity': 'forbidden',
  'oauth.account.link_conflict': 'conflict',
  'oauth.account.link_not_found': 'invalid-input',
  'oauth.account.identity_mismatch': 'invalid-input',
  'oauth.vault.unavailable': 'unavailable',
  'oauth.provider.unavailable': 'unavailable',
  'oauth.tokens.raced': 'unavailable',
}

/** Every deliberate failure of an `OAuthAccountStore` or the `OAuthAccountService`. Secret-free messages. */
export class OAuthAccountError extends PortcullisError {
  declare readonly code: OAuthAccountErrorCode

  constructor(code: OAuthAccountErrorCode, message: string, options: PortcullisErrorOptions = {}) {
    super(code, CLASS_OF[code], message, options)
  }
}

/** Why a link was refused. */
export type AccountLinkConflict =
  /** The exact `(provider, issuer, subject)` identity belongs to another local account. */
  | 'identity-linked-elsewhere'
  /** The account already holds a different identity of the same provider. */
  | 'provider-already-linked'

/** A 409: linking would give an identity two owners or an account two identities of one provider. */
export class AccountLinkError extends OAuthAccountError {
  readonly conflict: AccountLinkConflict

  constructor(conflict: AccountLinkConflict) {
    super(
      OAuthAccountErrorCodes.linkConflict,
      conflict === 'identity-linked-elsewhere'
        ? 'the provider identity is linked to another account'
        : 'the account already has a linked identity for this provider',
    )
    this.conflict = conflict
  }
}

export function invalidInput(message: string): OAuthAccountError {
  return new OAuthAccountError(OAuthAccountErrorCodes.invalidInput, message)
}
