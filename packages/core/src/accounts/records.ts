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

/** A usable (not suspended) passkey: `credentialId` is the public WebAuthn credential id (base64url). */
export interface PasskeySignInMethod {
  readonly kind: 'passkey'
  readonly accountId: string
  readonly credentialId: string
  /** The name its owner gave it ("Laptop"). */
  readonly name: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
}

/** One way to sign in to an account. */
export type SignInMethod = PasswordSignInMethod | IdentitySignInMethod | PasskeySignInMethod

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

/** Frozen method listings: the password first, then identities by provider, then passkeys oldest first. */
export function signInMethods(methods: readonly SignInMethod[]): readonly SignInMethod[] {
  const rank = { password: 0, identity: 1, passkey: 2 } as const
  const order = (method: SignInMethod) =>
    method.kind === 'identity' ? method.provider : method.kind === 'passkey' ? method.createdAt.getTime() : 0
  return Object.freeze(
    [...methods]
      .sort((a, b) => {
        if (a.kind !== b.kind) return rank[a.kind] - rank[b.kind]
        const [x, y] = [order(a), order(b)]
        return x < y ? -1 : x > y ? 1 : 0
      })
      .map((method) => Object.freeze(copyMethod(method))),
  )
}

function copyMethod(method: SignInMethod): SignInMethod {
  const createdAt = (date: Date) => new Date(date.getTime())
  switch (method.kind) {
    case 'password':
      return {
        kind: 'password',
        accountId: method.accountId,
        username: method.username,
        createdAt: createdAt(method.createdAt),
        passwordChangedAt: createdAt(method.passwordChangedAt),
      }
    case 'identity':
      return {
        kind: 'identity',
        accountId: method.accountId,
        providerAccountId: method.providerAccountId,
        provider: method.provider,
        issuer: method.issuer,
        subject: method.subject,
        scopes: Object.freeze([...method.scopes]),
        linkedAt: createdAt(method.linkedAt),
        updatedAt: createdAt(method.updatedAt),
      }
    case 'passkey':
      return {
        kind: 'passkey',
        accountId: method.accountId,
        credentialId: method.credentialId,
        name: method.name,
        createdAt: createdAt(method.createdAt),
        lastUsedAt: method.lastUsedAt === null ? null : createdAt(method.lastUsedAt),
      }
  }
}
