import { copyEnvelope } from './memory-state.js'
import type { MemoryStoreContext } from './memory-vault.js'
import {
  type ListStaleEnvelopesRequest,
  type RewriteEnvelopeRequest,
  requireEnvelopeRewrite,
  requireStaleEnvelopeListing,
  type StaleVaultEnvelope,
  sameEnvelope,
} from './reencryption-port.js'

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Vault entries by provider account id, then retries by retry id (code-point order), after `after`. */
export async function listStaleEnvelopes(
  context: MemoryStoreContext,
  request: ListStaleEnvelopesRequest,
): Promise<readonly StaleVaultEnvelope[]> {
  const { activeKeyVersion, after, limit } = requireStaleEnvelopeListing(request)
  return context.queue.run(() => {
    const { vault, retries } = context.state
    const stale: StaleVaultEnvelope[] = []
    if (after === undefined || after.kind === 'vault-tokens') {
      const ids = [...vault.keys()].sort(byCodePoint)
      for (const providerAccountId of ids) {
        if (after !== undefined && byCodePoint(providerAccountId, after.providerAccountId) <= 0) continue
        const row = vault.get(providerAccountId)
        if (row === undefined || row.envelope.keyVersion === activeKeyVersion) continue
        const envelope = copyEnvelope(row.envelope)
        stale.push({ kind: 'vault-tokens', providerAccountId, version: row.version, envelope })
        if (stale.length === limit) return stale
      }
    }
    const retryAfter = after?.kind === 'revocation-retry' ? after.retryId : undefined
    for (const retryId of [...retries.keys()].sort(byCodePoint)) {
      if (retryAfter !== undefined && byCodePoint(retryId, retryAfter) <= 0) continue
      const row = retries.get(retryId)
      if (row === undefined || row.envelope.keyVersion === activeKeyVersion) continue
      const { providerAccountId } = row
      stale.push({
        kind: 'revocation-retry',
        retryId,
        providerAccountId,
        envelope: copyEnvelope(row.envelope),
      })
      if (stale.length === limit) return stale
    }
    return stale
  })
}

/** Compare-and-swap on the exact envelope (and, for the vault, the version); the version is kept. */
export async function rewriteEnvelope(
  context: MemoryStoreContext,
  request: RewriteEnvelopeRequest,
): Promise<boolean> {
  const { stale, envelope } = requireEnvelopeRewrite(request)
  const next = copyEnvelope(envelope)
  return context.queue.run(() => {
    const { vault, retries } = context.state
    if (stale.kind === 'vault-tokens') {
      const row = vault.get(stale.providerAccountId)
      if (row === undefined || row.version !== stale.version || !sameEnvelope(row.envelope, stale.envelope))
        return false
      vault.set(stale.providerAccountId, { ...row, envelope: next })
      return true
    }
    const row = retries.get(stale.retryId)
    if (
      row === undefined ||
      row.providerAccountId !== stale.providerAccountId ||
      !sameEnvelope(row.envelope, stale.envelope)
    )
      return false
    retries.set(stale.retryId, { ...row, envelope: next })
    return true
  })
}
