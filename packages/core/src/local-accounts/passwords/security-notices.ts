import type { SecurityChange } from '../../mail/messages.js'
import type { OutboxEntry } from '../../mail/outbox.js'

/**
 * What writes a security notification with a password change in the same store transaction (the
 * `SecurityNotifier` of `@portcullis/core/account-email`): the outbox entries of a change, empty when the
 * account turned that kind off or has no verified address.
 */
export interface SecurityNoticeSource {
  entries(accountId: string, change: SecurityChange): Promise<readonly OutboxEntry[]>
}

/** The `outbox` member of a change request: present only when there is something to write. */
export async function noticesOf(
  notices: SecurityNoticeSource | undefined,
  accountId: string,
  change: SecurityChange,
): Promise<{ readonly outbox?: readonly OutboxEntry[] }> {
  if (notices === undefined) return {}
  const entries = await notices.entries(accountId, change)
  return entries.length === 0 ? {} : { outbox: entries }
}
