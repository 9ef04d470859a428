import type { AccountStore } from '../accounts/port.js'
import { LocalAuthError } from './auth-errors.js'
import { invalidLocalInput } from './errors.js'
import type { SessionOperations } from './session-operations.js'
import { isHandleTagList } from './sessions/session-store.js'
import type { LocalRequestInfo, SessionSignIn } from './sign-in.js'

/** A session no sign-in made, as `LocalAccounts.openSession` takes it. */
export interface OpenSessionRequest {
  readonly accountId: string
  readonly handleTags: readonly string[]
  readonly expiresAt: Date
  readonly request?: LocalRequestInfo
}

/**
 * Opens a session of an active account at its current security epoch, its handle carrying `handleTags`.
 * Throws `local.invalid_input` for a malformed request and `local.account_not_found` for an unknown or
 * disabled account.
 */
export async function openAccountSession(
  parts: { readonly accounts: AccountStore; readonly operations: SessionOperations },
  request: OpenSessionRequest,
): Promise<SessionSignIn> {
  if (typeof request?.accountId !== 'string' || request.accountId === '') {
    throw invalidLocalInput('accountId must be a non-empty string')
  }
  const tags = request.handleTags
  if (!isHandleTagList(tags))
    throw invalidLocalInput('handleTags must be 1 or 2 tags of 11 base64url characters')
  const account = await parts.accounts.getAccount(request.accountId)
  if (account === null || account.status === 'disabled') {
    throw new LocalAuthError('local.account_not_found', 'no active account with this id')
  }
  return parts.operations.openSession({
    accountId: account.accountId,
    securityEpoch: account.securityEpoch,
    handleTags: tags,
    expiresAt: request.expiresAt,
    request: request.request,
  })
}

/** Checks a tag list for `LocalAccounts.revokeTaggedSessions` (1 or 2 tags of 11 base64url characters). */
export function checkedHandleTags(tags: readonly string[]): readonly string[] {
  if (!isHandleTagList(tags)) throw invalidLocalInput('tags must be 1 or 2 tags of 11 base64url characters')
  return tags
}
