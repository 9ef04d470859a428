import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { type StepUpRecord, StepUpService, type StepUpStore } from '@portcullis/core/step-up'

/** A store for one case; stores may share a database, the suite uses unique digests and accounts. */
export interface StepUpStoreFixture {
  readonly store: StepUpStore
  dispose?(): Promise<void> | void
}

export type StepUpStoreFactory = () => StepUpStoreFixture | Promise<StepUpStoreFixture>

export const T0 = new Date('2031-03-04T05:06:07.000Z')

/** A settable clock and a service over the store under test. */
export function serviceOver(
  store: StepUpStore,
  start = T0,
): { service: StepUpService; setNow(now: Date): void } {
  let now = start
  return {
    service: new StepUpService({ store, clock: () => now }),
    setNow: (next) => {
      now = next
    },
  }
}

export function binding(
  overrides: Partial<{
    accountId: string
    purpose: string
    securityEpoch: number
    sessionBinding: string
  }> = {},
) {
  return {
    accountId: `account-${randomUUID()}`,
    purpose: 'payments.approve',
    securityEpoch: 7,
    sessionBinding: `session-${randomUUID()}`,
    ...overrides,
  }
}

export function digest(): string {
  return createHash('sha256').update(randomBytes(32)).digest('base64url')
}

export function record(overrides: Partial<StepUpRecord> = {}): StepUpRecord {
  return {
    digest: digest(),
    accountId: `account-${randomUUID()}`,
    purpose: 'payments.approve',
    securityEpoch: 3,
    sessionDigest: digest(),
    issuedAt: T0,
    authenticatedAt: new Date(T0.getTime() - 1000),
    expiresAt: new Date(T0.getTime() + 300_000),
    ...overrides,
  }
}

export function sameRecord(a: StepUpRecord | null, b: StepUpRecord): boolean {
  return (
    a !== null &&
    a.digest === b.digest &&
    a.accountId === b.accountId &&
    a.purpose === b.purpose &&
    a.securityEpoch === b.securityEpoch &&
    a.sessionDigest === b.sessionDigest &&
    a.issuedAt.getTime() === b.issuedAt.getTime() &&
    a.authenticatedAt.getTime() === b.authenticatedAt.getTime() &&
    a.expiresAt.getTime() === b.expiresAt.getTime()
  )
}
