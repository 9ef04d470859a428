import type { ProtectedEnvelope } from '../../protection/protector.js'
import { requireId } from './input.js'
import { copyEnvelope } from './memory-state.js'
import type { MemoryStoreContext } from './memory-vault.js'

/**
 * Read and write access to the stored envelopes of an `OAuthAccountStore`, below its API. Conformance
 * suites use it to prove that tokens are stored as ciphertext and that an envelope copied onto
 * another row does not open. Implementers supply one for their store (for SQL: select and update the
 * envelope columns); it is a test hook, not part of the port.
 */
export interface OAuthVaultInspector {
  readVaultEnvelope(providerAccountId: string): Promise<ProtectedEnvelope | null>
  /** Overwrites the envelope of an existing vault row, keeping its version; false if there is no row. */
  writeVaultEnvelope(providerAccountId: string, envelope: ProtectedEnvelope): Promise<boolean>
  readRetryEnvelope(retryId: string): Promise<ProtectedEnvelope | null>
}

export function memoryInspector(context: MemoryStoreContext): OAuthVaultInspector {
  const { state, queue } = context
  return {
    readVaultEnvelope: async (providerAccountId) => {
      const row = state.vault.get(requireId(providerAccountId, 'providerAccountId'))
      return row === undefined ? null : copyEnvelope(row.envelope)
    },
    writeVaultEnvelope: (providerAccountId, envelope) =>
      queue.run(() => {
        const id = requireId(providerAccountId, 'providerAccountId')
        const row = state.vault.get(id)
        if (row === undefined) return false
        state.vault.set(id, { ...row, envelope: copyEnvelope(envelope) })
        return true
      }),
    readRetryEnvelope: async (retryId) => {
      const row = state.retries.get(requireId(retryId, 'retryId'))
      return row === undefined ? null : copyEnvelope(row.envelope)
    },
  }
}
