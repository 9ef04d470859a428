import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import type { MailOutboxStore } from '@portcullis/core/mail'
import { serializeProtectedEnvelope } from '@portcullis/core/protection'
import type { TotpEnrollment, TotpStore } from '@portcullis/core/totp'

/** A store for one case; stores may share a database, the suite uses fresh account ids. */
export interface TotpStoreFixture {
  readonly store: TotpStore
  /** A second store over the same storage (another app instance), for the cross-instance cases. */
  readonly sibling?: TotpStore
  /**
   * The outbox the store writes the `outbox` entries of enabling, replacing recovery codes and removal
   * into (same storage, same transaction). Without it the store must refuse requests that carry entries.
   */
  readonly outbox?: MailOutboxStore
  dispose?(): Promise<void> | void
}

export type TotpStoreFactory = () => TotpStoreFixture | Promise<TotpStoreFixture>

export const T0 = new Date('2031-03-04T05:06:07.123Z')

export const account = (): string => `account-${randomUUID()}`

/** A well-formed sealed secret (the store only keeps it; it never opens one). */
export function sealed(): string {
  return serializeProtectedEnvelope({ keyVersion: 'conformance-1', ciphertext: randomBytes(48) })
}

/** A well-formed recovery-code digest. */
export function recoveryDigest(): string {
  return `v1:${createHmac('sha256', randomBytes(32)).update(randomUUID()).digest('base64url')}`
}

export const digests = (count: number): string[] => Array.from({ length: count }, recoveryDigest)

/** An enabled enrollment at `step` with `codes` recovery-code digests. */
export async function enable(
  store: TotpStore,
  accountId: string,
  options: { readonly step?: number; readonly codes?: readonly string[] } = {},
): Promise<string> {
  const secret = sealed()
  await store.savePendingTotp({ accountId, sealedSecret: secret, now: T0 })
  const enabled = await store.enableTotp({
    accountId,
    sealedSecret: secret,
    step: options.step ?? 1000,
    recoveryCodeDigests: options.codes ?? [],
    now: new Date(T0.getTime() + 1000),
  })
  if (!enabled) throw new Error('enableTotp refused a fresh pending enrollment')
  return secret
}

export function sameEnrollment(actual: TotpEnrollment | null, expected: TotpEnrollment): boolean {
  return (
    actual !== null &&
    actual.accountId === expected.accountId &&
    actual.sealedSecret === expected.sealedSecret &&
    actual.status === expected.status &&
    actual.createdAt.getTime() === expected.createdAt.getTime() &&
    (actual.enabledAt?.getTime() ?? null) === (expected.enabledAt?.getTime() ?? null) &&
    actual.lastUsedStep === expected.lastUsedStep
  )
}

export async function codeOf(error: Promise<unknown>): Promise<string | undefined> {
  return error.then(
    () => 'resolved',
    (caught: unknown) => (caught as { code?: string }).code,
  )
}
