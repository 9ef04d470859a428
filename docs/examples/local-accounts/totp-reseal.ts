// The TOTP step of a key rotation: re-seal every stored TOTP secret under the protector's active key, so
// the retained key can be dropped. Run it after the new key is active on every instance.
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { PostgresClient } from '@portcullis/postgres'
import { PostgresTotpStore } from '@portcullis/postgres'
import { reencryptTotpSecrets } from '@portcullis/totp'

export async function resealTotpSecrets(client: PostgresClient, protector: OAuthTransactionProtector) {
  // #region reseal
  const report = await reencryptTotpSecrets({ store: new PostgresTotpStore({ client }), protector })
  if (report.unreadable > 0) console.error(report.unreadableSecrets) // keep the key that sealed them
  // #endregion reseal
  return report
}
