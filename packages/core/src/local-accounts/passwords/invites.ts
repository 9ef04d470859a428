import type { AccountStore } from '../../accounts/port.js'
import { invalidLocalInput } from '../errors.js'
import { digestOpaqueToken, newOpaqueToken } from '../opaque-token.js'
import type { LocalRuntime } from '../runtime.js'

/** A single-use invite code for `invite-only` registration, shown once (only its digest is stored). */
export async function issueInviteCode(
  accounts: AccountStore,
  runtime: LocalRuntime,
  options: { readonly expiresInSeconds?: number },
): Promise<{ readonly code: string; readonly expiresAt: Date }> {
  const seconds = options.expiresInSeconds ?? 7 * 86_400
  if (!Number.isSafeInteger(seconds) || seconds < 60 || seconds > 90 * 86_400) {
    throw invalidLocalInput('expiresInSeconds must be an integer from 60 to 90 days')
  }
  const now = runtime.clock()
  const code = newOpaqueToken(32, runtime.random)
  const expiresAt = new Date(now + seconds * 1000)
  await accounts.issueInvite({ digest: digestOpaqueToken(code), expiresAt, now: new Date(now) })
  return { code, expiresAt }
}
