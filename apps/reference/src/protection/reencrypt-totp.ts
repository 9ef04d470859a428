import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { type PostgresClient, PostgresTotpStore } from '@portcullis/postgres'
import { reencryptTotpSecrets, type TotpReencryptionReport } from '@portcullis/totp'

export interface TotpReencryptionOptions {
  readonly batchSize?: number
  /** Called after each batch with the counts so far. */
  readonly onProgress?: (report: TotpReencryptionReport) => void
}

/**
 * The TOTP part of the "drain" step of the rotation runbook: re-seals every TOTP secret (pending and
 * enabled enrollments) not under the protector's active key, through the store's re-sealing port
 * (`reencryptTotpSecrets`: compare-and-swap per enrollment, unreadable secrets reported and left in place).
 */
export function reencryptTotp(
  postgres: PostgresClient,
  protector: OAuthTransactionProtector,
  options: TotpReencryptionOptions = {},
): Promise<TotpReencryptionReport> {
  return reencryptTotpSecrets({
    store: new PostgresTotpStore({ client: postgres }),
    protector,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  })
}
