import { associatedData } from '../../protection/associated-data.js'
import { OAuthAccountError, OAuthAccountErrorCodes } from './errors.js'
import { ProviderTokenSet } from './token-set.js'

/** AAD purposes: a vault entry and a revocation retry can never be swapped for each other. */
const VAULT_PURPOSE = 'portcullis.oauth.vault-tokens.v1'
const RETRY_PURPOSE = 'portcullis.oauth.revocation-retry.v1'

/** Binds a vault envelope to its provider, client, provider account and version. */
export function vaultAssociatedData(
  provider: string,
  clientId: string,
  providerAccountId: string,
  version: number,
): Uint8Array {
  return associatedData(VAULT_PURPOSE, provider, clientId, providerAccountId, String(version))
}

/** Binds a retry envelope to its provider, client, provider account and retry id. */
export function retryAssociatedData(
  provider: string,
  clientId: string,
  providerAccountId: string,
  retryId: string,
): Uint8Array {
  return associatedData(RETRY_PURPOSE, provider, clientId, providerAccountId, retryId)
}

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: true })

/** Canonical plaintext: compact JSON with sorted keys. */
function canonical(tokens: ProviderTokenSet): string {
  return JSON.stringify({
    access_token: tokens.accessToken,
    expires_at: tokens.expiresAt.toISOString(),
    id_token: tokens.idToken,
    refresh_token: tokens.refreshToken,
    scopes: tokens.scopes,
    token_type: tokens.tokenType,
  })
}

export function encodeTokens(tokens: ProviderTokenSet): Uint8Array {
  return encoder.encode(canonical(tokens))
}

function unavailable(cause?: unknown): OAuthAccountError {
  return new OAuthAccountError(
    OAuthAccountErrorCodes.vaultUnavailable,
    'retained provider tokens could not be opened',
    cause === undefined ? {} : { cause },
  )
}

/**
 * Strict decode: the bytes must be exactly the canonical encoding of a valid token set, so duplicate
 * members, extra members, reordering or whitespace are all refused.
 */
export function decodeTokens(bytes: Uint8Array): ProviderTokenSet {
  try {
    const text = decoder.decode(bytes)
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unavailable()
    const record = value as Record<string, unknown>
    if (record.token_type !== 'Bearer') throw unavailable()
    const tokens = new ProviderTokenSet({
      accessToken: record.access_token as string,
      scopes: record.scopes as string[],
      expiresAt: record.expires_at as string,
      refreshToken: record.refresh_token as string | null,
      idToken: record.id_token as string | null,
    })
    if (canonical(tokens) !== text) throw unavailable()
    return tokens
  } catch {
    // No cause is kept: a JSON parser message can quote the plaintext, which holds tokens.
    throw unavailable()
  }
}

/** Opens an envelope; every failure is one secret-free `oauth.vault.unavailable` error. */
export async function openTokens(open: () => Promise<Uint8Array>): Promise<ProviderTokenSet> {
  let plaintext: Uint8Array
  try {
    plaintext = await open()
  } catch (error) {
    throw unavailable(error)
  }
  return decodeTokens(plaintext)
}

/** Seals tokens; a protector failure is an `oauth.vault.unavailable` error. */
export async function sealTokens<T>(
  seal: (plaintext: Uint8Array) => Promise<T>,
  tokens: ProviderTokenSet,
): Promise<T> {
  try {
    return await seal(encodeTokens(tokens))
  } catch (error) {
    throw new OAuthAccountError(
      OAuthAccountErrorCodes.vaultUnavailable,
      'provider tokens could not be sealed',
      { cause: error },
    )
  }
}
