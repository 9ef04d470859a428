import { isValidKeyVersion } from '../../protection/key.js'
import type { ProtectedEnvelope } from '../../protection/protector.js'
import { invalidInput } from './errors.js'
import { requireBoundedInteger, requireId, requireVersion } from './input.js'

/**
 * One stored envelope that is not under the active key, with the record identity its associated data
 * binds: a vault entry (provider account and token version) or a staged revocation retry (retry id and
 * provider account). `envelope` is null when the stored form is damaged and cannot even be parsed.
 */
export type StaleVaultEnvelope =
  | {
      readonly kind: 'vault-tokens'
      readonly providerAccountId: string
      readonly version: number
      readonly envelope: ProtectedEnvelope | null
    }
  | {
      readonly kind: 'revocation-retry'
      readonly retryId: string
      readonly providerAccountId: string
      readonly envelope: ProtectedEnvelope | null
    }

export interface ListStaleEnvelopesRequest {
  /** Envelopes labelled with this key version are current and never listed. */
  readonly activeKeyVersion: string
  /** The last envelope of the previous batch; the listing continues after it. */
  readonly after?: StaleVaultEnvelope
  /** 1..1000. */
  readonly limit: number
}

export interface RewriteEnvelopeRequest {
  /** As listed: the rewrite happens only if the record still holds exactly this envelope. */
  readonly stale: StaleVaultEnvelope
  /** The same secret sealed again, under the same associated data. */
  readonly envelope: ProtectedEnvelope
}

/**
 * Port: what `reencryptOAuthVault` needs from an `OAuthAccountStore` to re-seal its envelopes after a
 * protector key rotation, for one provider registration. Both operations are single atomic steps.
 */
export interface OAuthVaultReencryption {
  readonly provider: string
  readonly clientId: string
  /**
   * Up to `limit` token-vault and revocation-retry envelopes of this registration whose key version is
   * not `activeKeyVersion` (damaged ones included, with `envelope: null`): vault entries first, then
   * retries, each in an order of the store's choosing that stays the same between calls, continuing
   * after `after`. Paging from no `after` to a short batch lists every such envelope present throughout
   * exactly once.
   */
  listStaleEnvelopes(request: ListStaleEnvelopesRequest): Promise<readonly StaleVaultEnvelope[]>
  /**
   * Compare-and-swap: replaces the envelope only if the record still exists and holds exactly
   * `stale.envelope` (a vault entry also still at `stale.version`). The token version, and everything
   * else about the record, stays as it is, so a refresh that read the version before the rewrite still
   * wins its own compare-and-swap. False when the record changed or went away; nothing is written then.
   */
  rewriteEnvelope(request: RewriteEnvelopeRequest): Promise<boolean>
}

function requireStale(value: unknown, field: string): StaleVaultEnvelope {
  if (typeof value !== 'object' || value === null) throw invalidInput(`${field} must be a listed envelope`)
  const stale = value as StaleVaultEnvelope
  const providerAccountId = requireId(stale.providerAccountId, `${field}.providerAccountId`)
  if (stale.kind === 'vault-tokens') {
    const version = requireVersion(stale.version, `${field}.version`)
    return { kind: stale.kind, providerAccountId, version, envelope: stale.envelope }
  }
  if (stale.kind === 'revocation-retry') {
    const retryId = requireId(stale.retryId, `${field}.retryId`)
    return { kind: stale.kind, retryId, providerAccountId, envelope: stale.envelope }
  }
  throw invalidInput(`${field}.kind must be vault-tokens or revocation-retry`)
}

/** Validates a `listStaleEnvelopes` request; every store applies the same rules. */
export function requireStaleEnvelopeListing(request: ListStaleEnvelopesRequest): ListStaleEnvelopesRequest {
  if (typeof request !== 'object' || request === null) throw invalidInput('request must be an object')
  if (!isValidKeyVersion(request.activeKeyVersion))
    throw invalidInput('activeKeyVersion is not a key version')
  const limit = requireBoundedInteger(request.limit, 'limit', 1, 1000)
  const activeKeyVersion = request.activeKeyVersion
  if (request.after === undefined) return { activeKeyVersion, limit }
  return { activeKeyVersion, limit, after: requireStale(request.after, 'after') }
}

/** Validates a `rewriteEnvelope` request: a listed record and a well-formed replacement envelope. */
export function requireEnvelopeRewrite(request: RewriteEnvelopeRequest): RewriteEnvelopeRequest {
  if (typeof request !== 'object' || request === null) throw invalidInput('request must be an object')
  const stale = requireStale(request.stale, 'stale')
  const envelope: Partial<ProtectedEnvelope> | null | undefined = request.envelope
  if (
    !isValidKeyVersion(envelope?.keyVersion) ||
    !(envelope.ciphertext instanceof Uint8Array) ||
    envelope.ciphertext.byteLength === 0
  ) {
    throw invalidInput('envelope must be a protector envelope')
  }
  return { stale, envelope: { keyVersion: envelope.keyVersion, ciphertext: envelope.ciphertext } }
}

/** Whether two envelopes are the same bytes under the same key version. */
export function sameEnvelope(a: ProtectedEnvelope | null, b: ProtectedEnvelope | null): boolean {
  if (a === null || b === null) return false
  if (a.keyVersion !== b.keyVersion || a.ciphertext.byteLength !== b.ciphertext.byteLength) return false
  return a.ciphertext.every((byte, index) => byte === b.ciphertext[index])
}
