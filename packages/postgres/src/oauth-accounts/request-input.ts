// The core's input checks for account stores, so this store refuses exactly the input the memory store
// refuses, with the same codes (the conformance suite's input cases hold both to it).
import { accounts } from '@portcullis/core/oauth'

export const {
  optionalOutbox,
  optionalTokenSet,
  requireBoundedInteger,
  requireFailedTokenTypes,
  requireGrant,
  requireId,
  requireIdentity,
  requireNow,
  requireTokenSet,
  requireVersion,
} = accounts

export function invalidInput(message: string): accounts.OAuthAccountError {
  return new accounts.OAuthAccountError(accounts.OAuthAccountErrorCodes.invalidInput, message)
}
