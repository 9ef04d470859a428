/** A registered passkey: a sign-in method of its account. The public key is public; nothing here is secret. */
export interface PasskeyCredential {
  /** The WebAuthn credential id, base64url. Unique across accounts. */
  readonly credentialId: string
  readonly accountId: string
  /** The COSE public key as the authenticator gave it. */
  readonly publicKey: Uint8Array
  /** The last signature counter seen (0 for authenticators that keep none, such as synced passkeys). */
  readonly counter: number
  /** Transport hints from registration (`internal`, `hybrid`, `usb`, ...), for the browser's UI. */
  readonly transports: readonly string[]
  /** `multiDevice` for synced passkeys, `singleDevice` for device-bound ones. */
  readonly deviceType: 'singleDevice' | 'multiDevice'
  readonly backedUp: boolean
  /** What the user calls it ("Work laptop"); 1-64 characters. */
  readonly name: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
  /** When its counter went backwards (possibly cloned); a suspended passkey is refused. */
  readonly suspendedAt: Date | null
}

/** Which ceremony a challenge was issued for. */
export type PasskeyCeremony = 'registration' | 'authentication'

/**
 * A pending ceremony as stored: the challenge and the browser binding only as HMAC digests. Registration
 * and step-up challenges also name the account and the session they were issued to.
 */
export interface PasskeyChallenge {
  readonly challengeDigest: string
  readonly bindingDigest: string
  readonly ceremony: PasskeyCeremony
  /** The account registering or stepping up; null for a sign-in (the passkey names the account). */
  readonly accountId: string | null
  /** Digest of the session binding of a registration or step-up; null for a sign-in. */
  readonly sessionDigest: string | null
  /** The step-up purpose of an authentication challenge; null otherwise. */
  readonly purpose: string | null
  readonly createdAt: Date
  readonly expiresAt: Date
}
