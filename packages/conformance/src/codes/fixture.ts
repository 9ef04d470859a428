import { randomInt, randomUUID } from 'node:crypto'
import {
  CodeKeyRing,
  type CodePurpose,
  type ConsumeCodeRequest,
  generateFlowId,
  type NewOneTimeCode,
  type OneTimeCodeRecord,
  type OneTimeCodeStore,
} from '@portcullis/core/codes'
import type { OutboxEntry } from '@portcullis/core/mail'

/** One case's stores; every case uses fresh accounts, ids and addresses, so stores may share a database. */
export interface OneTimeCodeStoreFixture {
  readonly store: OneTimeCodeStore
  /**
   * A second instance over the same data (another connection pool, as another app instance has); the
   * race cases split their calls between the two. `store` itself when omitted.
   */
  readonly peer?: OneTimeCodeStore
  /** Makes an account codes may name (a Postgres store checks the foreign key); its id. */
  createAccount(): Promise<string>
  /** Deletes an account the way the application does; when given, its codes must go with it. */
  deleteAccount?(accountId: string): Promise<void>
  /**
   * Which of `ids` the outbox the store writes into holds. When given, `issue` must write its entries
   * in the same transaction as the code (both or neither).
   */
  storedOutboxIds?(ids: readonly string[]): Promise<readonly string[]>
  dispose?(): Promise<void> | void
}

export type OneTimeCodeStoreFactory = () => OneTimeCodeStoreFixture | Promise<OneTimeCodeStoreFixture>

export const T0 = new Date('2031-03-04T05:06:07.000Z')
export const HOUR = 3_600_000
export const PLAIN = '482913'

const secret = (fill: number) => new Uint8Array(32).fill(fill)
/** The key ring codes are issued under (version 1). */
export const RING = new CodeKeyRing({ version: 1, secret: secret(0x31) })
/** After a rotation: version 2 active, version 1 retained. */
export const ROTATED = new CodeKeyRing({ version: 2, secret: secret(0x32) }, [
  { version: 1, secret: secret(0x31) },
])
/** After version 1 was dropped. */
export const DROPPED = new CodeKeyRing({ version: 2, secret: secret(0x32) })

export const at = (milliseconds: number, base = T0): Date => new Date(base.getTime() + milliseconds)

export interface CodeOptions extends Partial<Omit<NewOneTimeCode, 'digest' | 'keyVersion'>> {
  readonly plain?: string
  readonly ring?: CodeKeyRing
}

/** A new code for `accountId` (null: an address without an account), digested under `ring`. */
export function newCode(accountId: string | null, options: CodeOptions = {}): NewOneTimeCode {
  const { plain = PLAIN, ring = RING, ...fields } = options
  const id = fields.id ?? generateFlowId()
  const purpose: CodePurpose = fields.purpose ?? 'password-reset'
  const { keyVersion, digest } = ring.issueDigest({ id, purpose, code: plain })
  return {
    id,
    purpose,
    accountId,
    address: `person-${randomUUID()}@example.com`,
    digest,
    keyVersion,
    maxAttempts: 5,
    createdAt: T0,
    expiresAt: at(HOUR),
    payload: null,
    ...fields,
  }
}

/** A consume request presenting `plain` for `code`, digested under every version of `ring`. */
export function present(
  code: Pick<NewOneTimeCode, 'id' | 'purpose'>,
  options: { plain?: string; ring?: CodeKeyRing; now?: Date; purpose?: CodePurpose } = {},
): ConsumeCodeRequest {
  const purpose = options.purpose ?? code.purpose
  return {
    id: code.id,
    purpose,
    candidates: (options.ring ?? RING).candidates({ id: code.id, purpose, code: options.plain ?? PLAIN }),
    now: options.now ?? T0,
  }
}

export function outboxEntry(accountId: string | null): OutboxEntry {
  return {
    id: randomUUID(),
    kind: 'password-reset',
    accountId,
    envelope: `v1.sealed.${randomUUID()}`,
    createdAt: T0,
  }
}

/** A random instant between 1975 and 2000, so a sweep case's expired codes are its own. */
export function distantPast(): Date {
  return new Date(Date.UTC(1975, 0, 1) + randomInt(0, 25 * 365) * 86_400_000)
}

export function sameCode(record: OneTimeCodeRecord, issued: NewOneTimeCode, attempts = 0): boolean {
  return (
    record.id === issued.id &&
    record.purpose === issued.purpose &&
    record.accountId === issued.accountId &&
    record.address === issued.address &&
    record.digest === issued.digest &&
    record.keyVersion === issued.keyVersion &&
    record.attempts === attempts &&
    record.maxAttempts === issued.maxAttempts &&
    record.createdAt.getTime() === issued.createdAt.getTime() &&
    record.expiresAt.getTime() === issued.expiresAt.getTime() &&
    record.payload === issued.payload
  )
}

/** The `code` of a rejection, or `resolved` when the call succeeded. */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'resolved',
    (error: unknown) => String((error as { code?: unknown }).code ?? (error as Error).message),
  )
}
