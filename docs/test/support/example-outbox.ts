// What the examples of the email flows share: memory stores that write their mail into one outbox, and
// reading a message back from it as the drain would send it (opened with the protector), with the flow
// and code its link carries (`?flow=...#code=...`).
import { randomBytes } from 'node:crypto'
import { MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import { MemoryRateLimitStore } from '@portcullis/core/local-accounts'
import {
  type MailMessage,
  MemoryMailOutbox,
  type OutboxEntry,
  type OutboxRecord,
  openOutboxMessage,
} from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'

/**
 * A memory outbox that remembers the order its entries were written in: `pending()` sorts rows of one
 * millisecond (an address added and its code resent at once) by their random ids.
 */
class WriteOrderOutbox extends MemoryMailOutbox {
  readonly #written: string[] = []

  override prepareWrite(entries: unknown): () => void {
    const write = super.prepareWrite(entries)
    return () => {
      write()
      for (const entry of entries as readonly OutboxEntry[]) this.#written.push(entry.id)
    }
  }

  /** The pending messages, the one written first first. */
  inWriteOrder(): OutboxRecord[] {
    const pending = new Map(this.pending().map((row) => [row.id, row]))
    return this.#written.flatMap((id) => pending.get(id) ?? [])
  }
}

export interface ExampleMailStores {
  readonly outbox: WriteOrderOutbox
  /** Writes its codes' mail into `outbox`. */
  readonly codes: MemoryOneTimeCodeStore
  readonly rateLimits: MemoryRateLimitStore
  /** Seals the outbox entries (a fresh key). */
  readonly protector: AESGCMOAuthTransactionProtector
}

/** Fresh memory stores of the mail flows. */
export function exampleMailStores(): ExampleMailStores {
  const outbox = new WriteOrderOutbox()
  return {
    outbox,
    codes: new MemoryOneTimeCodeStore({ outbox }),
    rateLimits: new MemoryRateLimitStore(),
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
  }
}

export interface OutboxMail {
  /** Every pending message of the kind (and address), in the order written. */
  readonly all: readonly MailMessage[]
  /** The newest of them. */
  readonly message: MailMessage | undefined
  /** Its link (`link`, else `undoLink`), absolute; `https://app.example/` when it has none. */
  readonly link: string
  readonly flow: string
  readonly code: string
}

/** The newest pending message of `kind` (to `address` when given), opened, and what its link carries. */
export async function readOutboxMail(
  { outbox, protector }: Pick<ExampleMailStores, 'outbox' | 'protector'>,
  kind: MailMessage['kind'],
  address?: string,
): Promise<OutboxMail> {
  const messages = await Promise.all(outbox.inWriteOrder().map((row) => openOutboxMessage(protector, row)))
  const all = messages.filter(
    (each) => each.kind === kind && (address === undefined || each.to.address === address),
  )
  const message = all.at(-1)
  const href =
    message === undefined
      ? ''
      : 'link' in message
        ? (message.link ?? '')
        : 'undoLink' in message
          ? message.undoLink
          : ''
  const url = new URL(href || '/', 'https://app.example')
  return {
    all,
    message,
    link: url.toString(),
    flow: url.searchParams.get('flow') ?? '',
    code: new URLSearchParams(url.hash.slice(1)).get('code') ?? '',
  }
}
