import { InvalidInputError } from '@portcullis/core'
import type { transactions } from '@portcullis/core/oauth'
import { parseProtectedEnvelope, serializeProtectedEnvelope } from '@portcullis/core/protection'
import type { OAuthTransactionRow } from './tables.js'

type SealedOAuthTransaction = transactions.SealedOAuthTransaction

const DIGEST_BYTES = 32

function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

/** The lookup key, checked as the memory store checks it (`oauth.transaction.key_invalid`). */
export function requireKey(key: transactions.OAuthTransactionKey): transactions.OAuthTransactionKey {
  const { stateDigest, bindingDigest, provider } = (key ?? {}) as Partial<transactions.OAuthTransactionKey>
  const isDigest = (value: unknown): value is Uint8Array =>
    value instanceof Uint8Array && value.byteLength === DIGEST_BYTES
  const isProvider =
    typeof provider === 'string' &&
    provider.trim() !== '' &&
    provider.length <= 128 &&
    !hasControlCharacter(provider)
  if (!isDigest(stateDigest) || !isDigest(bindingDigest) || !isProvider) {
    throw new InvalidInputError(
      'oauth.transaction.key_invalid',
      'transaction key must hold two 32-byte digests and a provider',
    )
  }
  return { stateDigest, bindingDigest, provider }
}

export function requireTime(value: unknown, what: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new InvalidInputError('oauth.transaction.time_invalid', `${what} must be a valid Date`)
  }
  return value
}

/** The row for a sealed transaction: every field as is, the two secrets as `pe1.` envelope text. */
export function toRow(sealed: SealedOAuthTransaction): OAuthTransactionRow {
  return {
    stateDigest: sealed.stateDigest,
    bindingDigest: sealed.bindingDigest,
    provider: sealed.provider,
    operation: sealed.operation,
    redirectUri: sealed.redirectUri,
    returnTo: sealed.returnTo,
    requestedScopes: [...sealed.requestedScopes],
    pkceVerifierEnvelope: serializeProtectedEnvelope(sealed.pkceVerifier),
    nonceEnvelope: sealed.nonce === null ? null : serializeProtectedEnvelope(sealed.nonce),
    expectedIssuer: sealed.expectedIssuer,
    accountId: sealed.accountId,
    sessionBindingDigest: sealed.sessionBindingDigest,
    securityEpoch: sealed.securityEpoch,
    providerAccountId: sealed.providerAccountId,
    stepUpPurpose: sealed.stepUpPurpose,
    maxAuthenticationAge: sealed.maxAuthenticationAge,
    createdAt: sealed.createdAt,
    expiresAt: sealed.expiresAt,
  }
}

/**
 * The sealed transaction a row holds. A damaged envelope column throws the protector's
 * `ProtectedEnvelopeError`, the same error as an envelope that does not open.
 */
export function toSealed(row: OAuthTransactionRow): SealedOAuthTransaction {
  return {
    stateDigest: row.stateDigest,
    bindingDigest: row.bindingDigest,
    provider: row.provider,
    operation: row.operation,
    redirectUri: row.redirectUri,
    returnTo: row.returnTo,
    requestedScopes: Object.freeze([...row.requestedScopes]),
    pkceVerifier: parseProtectedEnvelope(row.pkceVerifierEnvelope),
    nonce: row.nonceEnvelope === null ? null : parseProtectedEnvelope(row.nonceEnvelope),
    expectedIssuer: row.expectedIssuer,
    accountId: row.accountId,
    sessionBindingDigest: row.sessionBindingDigest,
    securityEpoch: row.securityEpoch,
    providerAccountId: row.providerAccountId,
    stepUpPurpose: row.stepUpPurpose,
    maxAuthenticationAge: row.maxAuthenticationAge,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  }
}
