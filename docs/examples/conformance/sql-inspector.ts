// The vault inspector a SQL-backed OAuthAccountStore hands to the conformance suite: it reads and
// overwrites envelope columns below the store's API, so the suite can prove that tokens are stored as
// ciphertext and that an envelope copied onto another row does not open.
import type { accounts } from '@portcullis/core/oauth'

/** The slice of a SQL client the inspector needs (node-postgres' `Pool#query` fits). */
export interface Sql {
  query<Row>(text: string, values: readonly unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>
}

interface EnvelopeRow {
  key_version: string
  ciphertext: Uint8Array
}

export function sqlVaultInspector(sql: Sql): accounts.OAuthVaultInspector {
  const envelope = (rows: EnvelopeRow[]) => {
    const row = rows[0]
    return row === undefined
      ? null
      : { keyVersion: row.key_version, ciphertext: new Uint8Array(row.ciphertext) }
  }
  return {
    async readVaultEnvelope(providerAccountId) {
      const result = await sql.query<EnvelopeRow>(
        'SELECT key_version, ciphertext FROM oauth_token_vault WHERE provider_account_id = $1',
        [providerAccountId],
      )
      return envelope(result.rows)
    },
    // #region the-vault-inspector
    async writeVaultEnvelope(providerAccountId, { keyVersion, ciphertext }) {
      const result = await sql.query(
        'UPDATE oauth_token_vault SET key_version = $2, ciphertext = $3 WHERE provider_account_id = $1',
        [providerAccountId, keyVersion, ciphertext],
      )
      return result.rowCount === 1
    },
    // #endregion the-vault-inspector
    async readRetryEnvelope(retryId) {
      const result = await sql.query<EnvelopeRow>(
        'SELECT key_version, ciphertext FROM oauth_revocation_retries WHERE retry_id = $1',
        [retryId],
      )
      return envelope(result.rows)
    },
  }
}
