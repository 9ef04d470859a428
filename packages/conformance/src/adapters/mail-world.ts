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

// What the worlds of the email flows share: a clock the cases move, memory stores that write their mail
// into one outbox and reading that outbox back.

/** A clock the cases move (milliseconds since the epoch). */
export function movableClock(start = Date.now()) {
  let now = start
  return Object.assign(() => now, {
    advance(ms: number) {
      now += ms
    },
  })
}

export type MovableClock = ReturnType<typeof movableClock>

/**
 * A memory outbox that remembers the order its entries were written in: `pending()` sorts rows of one
 * millisecond by their random ids, so "the mail written last" has to be read this way.
 */
export class WriteOrderOutbox extends MemoryMailOutbox {
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

  /** The pending messages, the one written last first. */
  newestFirst(): OutboxRecord[] {
    return this.inWriteOrder().reverse()
  }
}

/** The outbox, the code store writing into it, the rate limits and the protector sealing the entries. */
export function mailStores() {
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

/** A message read back, and the flow and code its link (`link`, else `undoLink`) carries. */
export interface OutboxMail {
  readonly message: MailMessage | undefined
  readonly link: string | undefined
  readonly flow: string
  readonly code: string
}

/** Reads the outbox as the drain would send it: every message opened, in the order written. */
export function outboxReader(stores: Pick<ReturnType<typeof mailStores>, 'outbox' | 'protector'>) {
  const { outbox, protector } = stores
  const messages = async (): Promise<MailMessage[]> =>
    Promise.all(outbox.inWriteOrder().map((row) => openOutboxMessage(protector, row)))
  /** The newest message that `matches`. */
  const newest = async (matches: (message: MailMessage) => boolean): Promise<OutboxMail> => {
    const message = (await messages()).filter(matches).at(-1)
    const link =
      message === undefined
        ? undefined
        : 'link' in message
          ? message.link
          : 'undoLink' in message
            ? message.undoLink
            : undefined
    const url = link === undefined ? undefined : new URL(link)
    return {
      message,
      link,
      flow: url?.searchParams.get('flow') ?? '',
      code: new URLSearchParams(url?.hash.slice(1) ?? '').get('code') ?? '',
    }
  }
  return { messages, newest }
}
