import { ConfigurationError, InvalidInputError } from '../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { validateOutboxEntries } from '../mail/outbox-input.js'
import { indexOf } from './entries.js'
import type { OAuthServerChange, OAuthServerEntry } from './port.js'

/**
 * The outbox entries of an `upsert` (none when absent), checked against its (checked) entry before
 * anything is written: entries only with a `Grant`, and only of that grant's account
 * (`oauth_server.invalid_entry` otherwise: a notification never reaches another account's person).
 */
export function validateServerChange(entry: OAuthServerEntry, change: unknown): readonly OutboxEntry[] {
  if (change === undefined) return Object.freeze([])
  if (typeof change !== 'object' || change === null) {
    throw new InvalidInputError('oauth_server.invalid_entry', 'the change must be an object')
  }
  const outbox = validateOutboxEntries((change as OAuthServerChange).outbox)
  if (outbox.length === 0) return outbox
  const { accountId } = indexOf(entry)
  if (entry.model !== 'Grant' || accountId === undefined) {
    throw new InvalidInputError(
      'oauth_server.invalid_entry',
      'only a Grant of an account carries outbox entries',
    )
  }
  if (outbox.some((each) => each.accountId !== accountId)) {
    throw new InvalidInputError('oauth_server.invalid_entry', "outbox entries must be of the grant's account")
  }
  return outbox
}

/**
 * For the memory store: checks the entries against `outbox` and returns the function that writes them in
 * the change's synchronous step. Entries without an outbox are refused (`oauth_server.outbox_not_configured`).
 */
export function stageServerOutbox(
  outbox: MemoryMailOutbox | undefined,
  entries: readonly OutboxEntry[],
): () => void {
  if (entries.length === 0) return () => {}
  if (outbox === undefined) {
    throw new ConfigurationError(
      'oauth_server.outbox_not_configured',
      'this MemoryOAuthServerStore has no outbox: pass { outbox: MemoryMailOutbox } to write notifications with grants',
    )
  }
  return outbox.prepareWrite(entries)
}
