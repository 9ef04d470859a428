// Step 4 of the rotation runbook: rewrite every envelope still sealed under a retained key, so that key
// can be dropped. Each row is re-sealed under the active key with the same associated data.
import {
  type AESGCMOAuthTransactionProtector,
  associatedData,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'

/** The slice of your data layer this pass needs; `update` is a compare-and-swap on the old value. */
export interface SealedSecrets {
  batch(
    afterId: string | null,
    limit: number,
  ): Promise<Array<{ id: string; tenantId: string; sealed: string }>>
  update(id: string, expected: string, next: string): Promise<boolean>
}

export async function reprotectAll(protector: AESGCMOAuthTransactionProtector, rows: SealedSecrets) {
  let cursor: string | null = null
  let rewritten = 0
  for (;;) {
    const batch = await rows.batch(cursor, 500)
    if (batch.length === 0) return { rewritten }
    // #region re-encrypting-your-own-envelopes
    for (const row of batch) {
      cursor = row.id
      const envelope = parseProtectedEnvelope(row.sealed)
      if (!protector.needsReprotect(envelope)) continue
      const aad = associatedData('my-app.webhook-signing-secret.v1', row.tenantId)
      const next = serializeProtectedEnvelope(await protector.reprotect(envelope, aad))
      // A concurrent writer already replaced the value (under the active key): nothing to do.
      if (await rows.update(row.id, row.sealed, next)) rewritten++
    }
    // #endregion re-encrypting-your-own-envelopes
  }
}
