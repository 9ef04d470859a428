import { randomBytes } from 'node:crypto'
import type { OneTimeCodeStore } from '@portcullis/core/codes'
import type { MailOutboxStore } from '@portcullis/core/mail'
import { type accounts, transactions } from '@portcullis/core/oauth'
import {
  type EnvelopeHolding,
  type EnvelopeInventory,
  type EnvelopeInventoryReport,
  type OAuthTransactionProtector,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import type { TotpSecretResealing, TotpStore } from '@portcullis/core/totp'
import type { RotatingProtector } from '../oauth/reencryption-fixture.js'

/**
 * One case's storage: the stores that seal envelopes and the inventory that counts them, all over the
 * same storage and nothing else (the inventory counts everything it sees). Every store seals with the
 * given protector; the inventory judges expiry by the given clock.
 */
export interface EnvelopeInventoryFixture {
  readonly inventory: EnvelopeInventory
  readonly oauthAccounts: accounts.OAuthAccountStore & accounts.OAuthVaultReencryption
  readonly oauthTransactions: transactions.OAuthTransactionStore
  readonly totp: TotpStore & TotpSecretResealing
  /** The mail outbox: its sealed messages are counted until they are sent. */
  readonly mailOutbox: MailOutboxStore
  /** The one-time codes: their sealed flow data is counted until the code expires or is used. */
  readonly oneTimeCodes: OneTimeCodeStore
  dispose?(): Promise<void> | void
}

export interface EnvelopeInventoryWorld {
  readonly protector: OAuthTransactionProtector
  readonly clock: () => Date
}

export type EnvelopeInventoryFactory = (
  world: EnvelopeInventoryWorld,
) => EnvelopeInventoryFixture | Promise<EnvelopeInventoryFixture>

/** What a case gets: its fixture, the protector whose keys it rotates, and the clock it moves. */
export interface InventoryContext {
  readonly fixture: EnvelopeInventoryFixture
  readonly keys: RotatingProtector
  /** Sets the time the inventory judges expiry by. */
  setNow(now: Date): void
}

export const START = new Date('2031-03-04T05:06:07.000Z')
export const TRANSACTION_LIFETIME_MS = 600_000

/** A transaction that started at `createdAt`, with a nonce unless told otherwise. */
export function transactionAt(createdAt: Date, withNonce = true): transactions.OAuthTransaction {
  return new transactions.OAuthTransaction({
    stateDigest: randomBytes(32),
    bindingDigest: randomBytes(32),
    provider: 'conformance',
    operation: 'login',
    redirectUri: 'https://app.example/auth/oauth/conformance/callback',
    returnTo: '/',
    requestedScopes: ['openid'],
    pkceVerifier: randomBytes(32).toString('base64url'),
    nonce: withNonce ? randomBytes(32).toString('base64url') : null,
    createdAt,
    expiresAt: new Date(createdAt.getTime() + TRANSACTION_LIFETIME_MS),
  })
}

const TOTP_AAD = new TextEncoder().encode('conformance.envelope-inventory.totp')

/** A pending TOTP enrollment whose secret is sealed by `protector` (its active key). */
export async function pendingTotp(
  store: TotpStore,
  protector: OAuthTransactionProtector,
  accountId: string,
): Promise<void> {
  const envelope = await protector.protect(randomBytes(20), TOTP_AAD)
  await store.savePendingTotp({ accountId, sealedSecret: serializeProtectedEnvelope(envelope), now: START })
}

/** Re-seals every TOTP secret under the active key through the store's re-sealing port. */
export async function resealTotp(
  store: TotpSecretResealing,
  protector: OAuthTransactionProtector,
): Promise<number> {
  const stale = await store.listStaleTotpSecrets({
    activeKeyVersion: protector.activeKeyVersion,
    limit: 1000,
  })
  let rewritten = 0
  for (const secret of stale) {
    const envelope = await protector.protect(randomBytes(20), TOTP_AAD)
    const sealedSecret = serializeProtectedEnvelope(envelope)
    if (
      await store.resealTotpSecret({
        accountId: secret.accountId,
        expected: secret.sealedSecret,
        sealedSecret,
      })
    ) {
      rewritten += 1
    }
  }
  return rewritten
}

/** Envelopes under `keyVersion` per holding (holdings without any are left out). */
export function byHolding(
  report: EnvelopeInventoryReport,
  keyVersion: string,
): Partial<Record<EnvelopeHolding, number>> {
  const totals: Partial<Record<EnvelopeHolding, number>> = {}
  for (const location of report.locations) {
    const count = location.keyVersions[keyVersion] ?? 0
    if (count > 0) totals[location.holding] = (totals[location.holding] ?? 0) + count
  }
  return totals
}

/** Same holdings with the same counts. */
export function sameCounts(
  actual: Partial<Record<EnvelopeHolding, number>>,
  expected: Partial<Record<EnvelopeHolding, number>>,
): boolean {
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)] as EnvelopeHolding[])
  return [...keys].every((key) => (actual[key] ?? 0) === (expected[key] ?? 0))
}
