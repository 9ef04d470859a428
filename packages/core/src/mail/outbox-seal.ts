import { randomUUID } from 'node:crypto'
import { associatedData } from '../protection/associated-data.js'
import { parseProtectedEnvelope, serializeProtectedEnvelope } from '../protection/envelope-format.js'
import { type OAuthTransactionProtector, ProtectedEnvelopeError } from '../protection/protector.js'
import type { MailMessage } from './messages.js'
import type { OutboxEntry } from './outbox.js'
import { validateOutboxEntry } from './outbox-input.js'
import { validateMailMessage } from './validate.js'

// A message is sealed whole before it is written to the outbox: the recipient, the code and the links
// are secrets at rest (a code in a readable row is a reset waiting to be used). The associated data
// binds the envelope to its row (id, kind and account), so an envelope moved to another row, or a row
// whose account was rewritten, does not open.

/** The purpose of an outbox envelope's associated data. */
export const OUTBOX_ENVELOPE_PURPOSE = 'portcullis.mail.outbox.v1'

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

/** The associated data of an outbox row's envelope. */
export function outboxAssociatedData(entry: Pick<OutboxEntry, 'id' | 'kind' | 'accountId'>): Uint8Array {
  return associatedData(OUTBOX_ENVELOPE_PURPOSE, entry.id, entry.kind, entry.accountId ?? '')
}

export interface SealOutboxOptions {
  /** When the change happened (`createdAt`, and the first attempt's due time). */
  readonly now: Date
  /** The account the message concerns, or null (an address with no account). */
  readonly accountId: string | null
  /** The row's id (a lower-case UUID); default a fresh random one. */
  readonly id?: string | undefined
}

/**
 * Checks `message` as a mailer would (`validateMailMessage`: a bad message is refused when the change
 * is made, not found later by the drain) and seals it into an outbox entry.
 */
export async function sealOutboxMessage(
  protector: OAuthTransactionProtector,
  message: MailMessage,
  options: SealOutboxOptions,
): Promise<OutboxEntry> {
  const checked = validateMailMessage(message)
  const id = options.id ?? randomUUID()
  const aad = outboxAssociatedData({ id, kind: checked.kind, accountId: options.accountId })
  const sealed = await protector.protect(encoder.encode(JSON.stringify(checked)), aad)
  return validateOutboxEntry({
    id,
    kind: checked.kind,
    accountId: options.accountId,
    envelope: serializeProtectedEnvelope(sealed),
    createdAt: options.now,
  })
}

/**
 * Opens an outbox row's envelope back into its message. A tampered, truncated or moved envelope, a
 * wrong key, or a message whose kind is not the row's throws `ProtectedEnvelopeError` (the drain fails
 * such a row: no later attempt can open it).
 */
export async function openOutboxMessage(
  protector: OAuthTransactionProtector,
  entry: Pick<OutboxEntry, 'id' | 'kind' | 'accountId' | 'envelope'>,
): Promise<MailMessage> {
  const plaintext = await protector.unprotect(
    parseProtectedEnvelope(entry.envelope),
    outboxAssociatedData(entry),
  )
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(decoder.decode(plaintext)) as Record<string, unknown>
  } catch (error) {
    throw new ProtectedEnvelopeError({ cause: error })
  }
  if (typeof parsed !== 'object' || parsed === null || parsed.kind !== entry.kind)
    throw new ProtectedEnvelopeError()
  if (parsed.kind === 'security-notification' && typeof parsed.occurredAt === 'string') {
    parsed.occurredAt = new Date(parsed.occurredAt)
  }
  return parsed as unknown as MailMessage
}
