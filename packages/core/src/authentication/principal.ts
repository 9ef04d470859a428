/** Who a request is from, as established by one mechanism. */
export interface Principal {
  /** Stable identifier: a local account id for users, a service identity for workloads. */
  readonly id: string
  readonly kind: 'user' | 'service'
  /** Human-readable label; never used for authorization. */
  readonly displayName?: string
  /**
   * Present when an administrator is acting as this user (an impersonation): the administrator's account
   * id and the impersonation's id. The authorization snapshot is still this principal's, never the
   * administrator's.
   */
  readonly impersonator?: Impersonator
}

/** Who is acting as a principal during an impersonation. */
export interface Impersonator {
  readonly accountId: string
  readonly impersonationId: string
}

/**
 * What a credential grants on its own, applied on top of the authorization snapshot. Restrictions only
 * narrow: the effective grant is the intersection of the snapshot and every restriction.
 * An omitted field places no restriction on that dimension.
 */
export interface CredentialRestrictions {
  readonly scopes?: readonly string[]
  readonly roles?: readonly string[]
  readonly capabilities?: readonly string[]
  readonly teams?: readonly string[]
  /** Tenant id -> roles still allowed for that tenant; tenants absent here are removed. */
  readonly tenants?: Readonly<Record<string, readonly string[]>>
}

/** What a successful mechanism proves, for audit and policy. Secret-free. */
export interface AuthenticationEvidence {
  /** The mechanism name that verified the credential. */
  readonly mechanism: string
  /** e.g. `session`, `bearer-jwt`, `api-key`, `iap-assertion`. */
  readonly credentialType: string
  /** Non-secret claims worth keeping (issuer, subject, key id, expiry). */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>
  readonly restrictions?: CredentialRestrictions
  /** When the credential stops being valid, if it has an expiry. */
  readonly expiresAt?: Date
}
