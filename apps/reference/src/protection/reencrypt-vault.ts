import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { type PostgresClient, PostgresOAuthAccountStore } from '@portcullis/postgres'
import { DEMO_PROVIDER } from '../accounts/oauth.js'
import type { ReferenceConfig } from '../config.js'
import { DEMO_IDP_CLIENT_ID } from '../demo-idp/provider.js'

/** The provider registrations whose token vaults the app keeps: the demo IdP's and every enabled provider's. */
export function registrationsOf(
  config: Pick<ReferenceConfig, 'providers'>,
): readonly { readonly provider: string; readonly clientId: string }[] {
  return [
    { provider: DEMO_PROVIDER, clientId: DEMO_IDP_CLIENT_ID },
    ...(config.providers ?? []).map((settings) => ({ provider: settings.kind, clientId: settings.clientId })),
  ]
}

export interface ReencryptionOptions {
  readonly batchSize?: number
  /** Called after each batch with the counts so far. */
  readonly onProgress?: (report: accounts.OAuthVaultReencryptionReport) => void
}

/**
 * The "drain" step of the rotation runbook: re-seals every token-vault and revocation-retry envelope
 * of the app's provider registrations that is not under the protector's active key, through the
 * stores' re-encryption port (`reencryptOAuthVault`: compare-and-swap per record, token versions kept,
 * unreadable envelopes reported and left in place). OAuth transactions are not rewritten: they expire
 * within 10 minutes.
 */
export function reencryptVault(
  postgres: PostgresClient,
  config: Pick<ReferenceConfig, 'providers'>,
  protector: OAuthTransactionProtector,
  options: ReencryptionOptions = {},
): Promise<accounts.OAuthVaultReencryptionReport> {
  const stores = registrationsOf(config).map(
    ({ provider, clientId }) =>
      new PostgresOAuthAccountStore({ client: postgres, provider, clientId, protector }),
  )
  return accounts.reencryptOAuthVault({
    stores,
    protector,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  })
}
