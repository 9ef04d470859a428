import { associatedData } from '../../protection/associated-data.js'
import type { OAuthTransactionProtector, ProtectedEnvelope } from '../../protection/protector.js'
import { OAuthTransaction, type OAuthTransactionFields } from './transaction.js'

/**
 * The at-rest form of a transaction: every field except the PKCE verifier and nonce as is, those two as
 * envelopes. A durable store persists exactly this and calls `openOAuthTransaction` after removing it.
 */
export interface SealedOAuthTransaction extends OAuthTransactionFields {
  readonly pkceVerifier: ProtectedEnvelope
  readonly nonce: ProtectedEnvelope | null
}

const PKCE_PURPOSE = 'portcullis.oauth.transaction.pkce-verifier.v1'
const NONCE_PURPOSE = 'portcullis.oauth.transaction.nonce.v1'
const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

/**
 * Associated data for one secret of one transaction: the purpose, the lookup key (both digests and the
 * provider) and every other stored field. Moving an envelope to another transaction, swapping the
 * verifier and nonce, or editing any stored field makes the envelope fail to open. Null optional fields
 * are encoded as empty parts; present ones are never empty, so the two cannot collide.
 */
function transactionAad(purpose: string, record: OAuthTransactionFields): Uint8Array {
  const optional = (value: string | number | null) => (value === null ? '' : String(value))
  return associatedData(
    purpose,
    record.stateDigest,
    record.bindingDigest,
    record.provider,
    record.operation,
    record.redirectUri,
    record.returnTo,
    record.requestedScopes.join(' '),
    optional(record.expectedIssuer),
    optional(record.accountId),
    record.sessionBindingDigest ?? new Uint8Array(0),
    optional(record.securityEpoch),
    optional(record.providerAccountId),
    optional(record.stepUpPurpose),
    optional(record.maxAuthenticationAge),
    String(record.createdAt.getTime()),
    String(record.expiresAt.getTime()),
  )
}

function fieldsOf(record: OAuthTransactionFields): OAuthTransactionFields {
  return {
    stateDigest: record.stateDigest,
    bindingDigest: record.bindingDigest,
    provider: record.provider,
    operation: record.operation,
    redirectUri: record.redirectUri,
    returnTo: record.returnTo,
    requestedScopes: record.requestedScopes,
    expectedIssuer: record.expectedIssuer,
    accountId: record.accountId,
    sessionBindingDigest: record.sessionBindingDigest,
    securityEpoch: record.securityEpoch,
    providerAccountId: record.providerAccountId,
    stepUpPurpose: record.stepUpPurpose,
    maxAuthenticationAge: record.maxAuthenticationAge,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
  }
}

/** Seals the verifier and nonce; nothing is returned unless both envelopes were made. */
export async function sealOAuthTransaction(
  protector: OAuthTransactionProtector,
  transaction: OAuthTransaction,
): Promise<SealedOAuthTransaction> {
  const fields = fieldsOf(transaction)
  const [pkceVerifier, nonce] = await Promise.all([
    protector.protect(encoder.encode(transaction.pkceVerifier), transactionAad(PKCE_PURPOSE, fields)),
    transaction.nonce === null
      ? null
      : protector.protect(encoder.encode(transaction.nonce), transactionAad(NONCE_PURPOSE, fields)),
  ])
  return Object.freeze({ ...fields, pkceVerifier, nonce })
}

/** Opens a sealed transaction; a tampered field or envelope throws the protector's error. */
export async function openOAuthTransaction(
  protector: OAuthTransactionProtector,
  sealed: SealedOAuthTransaction,
): Promise<OAuthTransaction> {
  const fields = fieldsOf(sealed)
  const [pkceVerifier, nonce] = await Promise.all([
    protector.unprotect(sealed.pkceVerifier, transactionAad(PKCE_PURPOSE, fields)),
    sealed.nonce === null ? null : protector.unprotect(sealed.nonce, transactionAad(NONCE_PURPOSE, fields)),
  ])
  return new OAuthTransaction({
    ...fields,
    pkceVerifier: decoder.decode(pkceVerifier),
    nonce: nonce === null ? null : decoder.decode(nonce),
  })
}
