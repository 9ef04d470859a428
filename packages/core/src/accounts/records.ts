/**
 * `active` accounts sign in; `disabled` ones are refused everywhere (a password, a provider identity,
 * `establishSignIn`) until enabled again. Disabling moves the security epoch, so it also ends every
 * session and token family.
 */
export type AccountStatus = 'active' | 'disabled'

/**
 * The one record of a person: what every sign-in method, session, token family, step-up credential and
 * API key hangs on. The sign-in methods are rows of their own (`listSignInMethods`).
 */
export interface Account {
  readonly accountId: string
  /**
   * Starts at 1 and only grows. Sessions, refresh-token families, access tokens and step-up credentials
   * remember the epoch they were made at; anything older than the account's current epoch is dead.
   */
  readonly securityEpoch: number
  readonly status: AccountStatus
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The account's password (at most one per account); the hash is never part of a method listing. */
export interface PasswordSignInMethod {
  readonly kind: 'password'
  readonly accountId: string
  /** As `normalizeUsername` returns it; unique across accounts. */
  readonly username: string
  readonly createdAt: Date
  /** When the password was last set (a rehash of the same password keeps it). */
  readonly passwordChangedAt: Date
}

/** A provider identity: the exact `(provider, issuer, subject)` triple, at most one per provider. */
export interface IdentitySignInMethod {
  readonly kind: 'identity'
  readonly accountId: string
  readonly providerAccountId: string
  readonly provider: string
  readonly issuer: string
  readonly subject: string
  /** What the provider granted at the last sign-in, link or scope upgrade. */
  readonly scopes: readonly string[]
  readonly linkedAt: Date
  readonly updatedAt: Date
}

/** One way to sign in to an account. The passkey work adds a kind. */
export type SignInMethod = PasswordSignInMethod | IdentitySignInMethod

/**
 * An account's password method together with the account's epoch and status: what a password sign-in
 * reads. `passwordHash` is the encoded hash (an argon2id PHC string); records built by `passwordRecord`
 * keep it out of `util.inspect` and `JSON.stringify`.
 */
export interface PasswordRecord {
  readonly accountId: string
  readonly username: string
  readonly passwordHash: string
  readonly securityEpoch: number
  readonly status: AccountStatus
  /** When the account was created. */
  readonly createdAt: Date
  /** When the password row last changed (a rehash included). */
  readonly updatedAt: Date
  readonly passwordChangedAt: Date
}

const REDACTED = '[redacted]'

/**
 * A frozen `PasswordRecord` with copied dates whose `util.inspect` and `JSON.stringify` forms show
 * `passwordHash: '[redacted]'`. Stores return their records through this.
 */
export function passwordRecord(fields: PasswordRecord): PasswordRecord {
  const record: PasswordRecord = {
    accountId: fields.accountId,
    username: fields.username,
    passwordHash: fields.passwordHash,
    securityEpoch: fields.securityEpoch,
    status: fields.status,
    createdAt: new Date(fields.createdAt.getTime()),
    updatedAt: new Date(fields.updatedAt.getTime()),
    passwordChangedAt: new Date(fields.passwordChangedAt.getTime()),
  }
  const visible = () => ({ ...record, passwordHash: REDACTED })
  Object.defineProperties(record, {
    toJSON: { value: visible, enumerable: false },
    [Symbol.for('nodejs.util.inspect.custom')]: {
      value: (_depth: number, options: object, inspect: (value: unknown, options: object) => string) =>
        `PasswordRecord ${inspect(visible(), options)}`,
      enumerable: false,
    },
  })
  return Object.freeze(record)
}

/** A frozen copy of an account record. */
export function accountRecord(fields: Account): Account {
  return Object.freeze({
    accountId: fields.accountId,
    securityEpoch: fields.securityEpoch,
    status: fields.status,
    createdAt: new Date(fields.createdAt.getTime()),
    updatedAt: new Date(fields.updatedAt.getTime()),
  })
}

/** Frozen method listings, passwords first, then identities by provider. */
export function signInMethods(methods: readonly SignInMethod[]): readonly SignInMethod[] {
  const order = (method: SignInMethod) => (method.kind === 'password' ? '' : method.provider)
  return Object.freeze(
    [...methods]
      .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
      .map((method) =>
        Object.freeze(
          method.kind === 'password'
            ? {
                kind: 'password' as const,
                accountId: method.accountId,
                username: method.username,
                createdAt: new Date(method.createdAt.getTime()),
                passwordChangedAt: new Date(method.passwordChangedAt.getTime()),
              }
            : {
                kind: 'identity' as const,
                accountId: method.accountId,
                providerAccountId: method.providerAccountId,
                provider: method.provider,
                issuer: method.issuer,
                subject: method.subject,
                scopes: Object.freeze([...method.scopes]),
                linkedAt: new Date(method.linkedAt.getTime()),
                updatedAt: new Date(method.updatedAt.getTime()),
              },
        ),
      ),
  )
}
