import { invalidInput } from './errors.js'
import { requireBoundedInteger, requireId } from './input.js'
import type { MemoryStoreContext } from './memory-vault.js'
import type { OAuthAccountDirectory } from './port.js'
import type { AccountRecord, AdjustLoginMethodsOutcome } from './records.js'

type DirectoryRequest<K extends keyof OAuthAccountDirectory> = Parameters<OAuthAccountDirectory[K]>[0]

export const MAX_LOGIN_METHODS = 1000

export async function registerAccount(
  context: MemoryStoreContext,
  request: DirectoryRequest<'registerAccount'>,
): Promise<boolean> {
  const accountId = requireId(request?.accountId, 'accountId')
  const otherMethods = requireBoundedInteger(request.loginMethods, 'loginMethods', 0, MAX_LOGIN_METHODS)
  return context.queue.run(() => {
    if (context.accounts.has(accountId)) return false
    context.accounts.set(accountId, { otherMethods, links: 0 })
    return true
  })
}

export async function getAccount(
  context: MemoryStoreContext,
  accountId: string,
): Promise<AccountRecord | null> {
  const id = requireId(accountId, 'accountId')
  const row = context.accounts.get(id)
  return row === undefined ? null : { accountId: id, loginMethods: row.otherMethods + row.links }
}

/** Non-provider methods only: removing one the account does not have is `not-found`. */
export async function adjustLoginMethods(
  context: MemoryStoreContext,
  request: DirectoryRequest<'adjustLoginMethods'>,
): Promise<AdjustLoginMethodsOutcome> {
  const accountId = requireId(request?.accountId, 'accountId')
  if (request.delta !== 1 && request.delta !== -1) throw invalidInput('delta must be 1 or -1')
  const delta = request.delta
  return context.queue.run(() => {
    const row = context.accounts.get(accountId)
    if (row === undefined || (delta === -1 && row.otherMethods === 0)) return { status: 'not-found' }
    if (delta === -1 && row.otherMethods + row.links <= 1) return { status: 'final-method' }
    if (delta === 1 && row.otherMethods >= MAX_LOGIN_METHODS) throw invalidInput('too many login methods')
    const next = { otherMethods: row.otherMethods + delta, links: row.links }
    context.accounts.set(accountId, next)
    return { status: 'adjusted', loginMethods: next.otherMethods + next.links }
  })
}
