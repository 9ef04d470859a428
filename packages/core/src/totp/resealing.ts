import { isValidKeyVersion } from '../protection/key.js'
import { invalidTotpInput } from './errors.js'
import { requireSealedSecret, requireTotpAccountId } from './input.js'

/**
 * A stored TOTP secret (pending or enabled) whose envelope is not labelled with the active key version,
 * exactly as the store holds it: the text is what a later `resealTotpSecret` compares against. A damaged
 * value (no readable `pe1.<keyVersion>.<base64url>` form) is listed too; nothing can re-seal it.
 */
export interface StaleTotpSecret {
  readonly accountId: string
  readonly sealedSecret: string
}

export interface ListStaleTotpSecretsRequest {
  /** Secrets sealed under this key version are current and never listed. */
  readonly activeKeyVersion: string
  /** The last account id of the previous batch; the listing continues after it. */
  readonly afterAccountId?: string
  /** 1..1000. */
  readonly limit: number
}

export interface ResealTotpSecretRequest {
  readonly accountId: string
  /** As listed: the rewrite happens only if the enrollment still holds exactly this text. */
  readonly expected: string
  /** The same secret sealed again under the active key, with the same associated data. */
  readonly sealedSecret: string
}

/**
 * Port: what `reencryptTotpSecrets` (`@portcullis/totp`) needs from a `TotpStore` to re-seal the stored
 * secrets after a protector key rotation, so a retained key can be dropped. Both are single atomic steps.
 */
export interface TotpSecretResealing {
  /**
   * Up to `limit` enrollments, pending or enabled, whose sealed secret is not labelled
   * `activeKeyVersion` (damaged ones included), in an account-id order of the store's choosing that stays
   * the same between calls, continuing after `afterAccountId`. Paging from no cursor to a short batch lists every such enrollment present
   * throughout exactly once. A read: it locks nothing.
   */
  listStaleTotpSecrets(request: ListStaleTotpSecretsRequest): Promise<readonly StaleTotpSecret[]>
  /**
   * Compare-and-swap: replaces the sealed secret only while the account's enrollment still holds exactly
   * `expected`; its status, dates and last used step stay as they are. False (nothing written) when the
   * enrollment was removed, re-enrolled or otherwise changed: a removed one is never brought back.
   */
  resealTotpSecret(request: ResealTotpSecretRequest): Promise<boolean>
}

/** The key version label of a stored `pe1.<keyVersion>.<base64url>` secret; null for a damaged value. */
export function sealedSecretKeyVersion(sealedSecret: string): string | null {
  const match = /^pe1\.(.*)\.[A-Za-z0-9_-]+$/.exec(sealedSecret)
  const version = match?.[1]
  return version !== undefined && isValidKeyVersion(version) ? version : null
}

/** Validates a `listStaleTotpSecrets` request; every store applies the same rules. */
export function validateListStaleTotpSecrets(
  request: ListStaleTotpSecretsRequest,
): ListStaleTotpSecretsRequest {
  if (typeof request !== 'object' || request === null) throw invalidTotpInput('request must be an object')
  const { activeKeyVersion, afterAccountId, limit } = request
  if (!isValidKeyVersion(activeKeyVersion)) throw invalidTotpInput('activeKeyVersion is not a key version')
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw invalidTotpInput('limit must be an integer from 1 to 1000')
  }
  if (afterAccountId === undefined) return { activeKeyVersion, limit }
  return { activeKeyVersion, limit, afterAccountId: requireTotpAccountId(afterAccountId) }
}

/** Validates a `resealTotpSecret` request: an account, the listed text and a well-formed new envelope. */
export function validateResealTotpSecret(request: ResealTotpSecretRequest): ResealTotpSecretRequest {
  if (typeof request !== 'object' || request === null) throw invalidTotpInput('request must be an object')
  const accountId = requireTotpAccountId(request.accountId)
  if (typeof request.expected !== 'string' || request.expected === '') {
    throw invalidTotpInput('expected must be the listed sealed secret')
  }
  return { accountId, expected: request.expected, sealedSecret: requireSealedSecret(request.sealedSecret) }
}
