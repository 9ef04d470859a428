import { randomFillSync } from 'node:crypto'

const POOL_NONCES = 256

/**
 * Draws nonces from the system CSPRNG in batches: one `randomFillSync` call fills 256 nonces, and each
 * nonce is handed out exactly once (copied, then the offset moves on). Nonces are public, so holding the
 * next few in memory reveals nothing; batching removes a native call from every seal.
 */
export function pooledNonceSource(size: number): () => Uint8Array {
  const pool = new Uint8Array(size * POOL_NONCES)
  let offset = pool.byteLength
  return () => {
    if (offset === pool.byteLength) {
      randomFillSync(pool)
      offset = 0
    }
    const nonce = pool.slice(offset, offset + size)
    offset += size
    return nonce
  }
}
