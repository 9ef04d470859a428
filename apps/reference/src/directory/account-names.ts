import type { SignInMethod } from '@portcullis/core/accounts'

/** Reads an account's sign-in methods (`null` when the account is gone). */
export type SignInMethodLookup = (accountId: string) => Promise<readonly SignInMethod[] | null>

/** How many accounts' names are kept in memory (the oldest is forgotten first). */
const REMEMBERED = 10_000

function remember(map: Map<string, string>, accountId: string, name: string): void {
  map.delete(accountId)
  map.set(accountId, name)
  if (map.size > REMEMBERED) {
    const oldest = map.keys().next().value
    if (oldest !== undefined) map.delete(oldest)
  }
}

/**
 * What the pages call a signed-in person who is not a demo user: the password's username, else the email
 * the provider gave at the last sign-in, else the name last shown, else the provider's subject. `undefined`
 * only when the account has none of these (the pages then show the account id).
 */
export function accountName(
  methods: readonly SignInMethod[],
  email: string | undefined,
  lastShown: string | undefined,
): string | undefined {
  const password = methods.find((method) => method.kind === 'password')
  if (password !== undefined) return password.username
  if (email !== undefined) return email
  if (lastShown !== undefined) return lastShown
  const identity = methods.find((method) => method.kind === 'identity')
  return identity === undefined ? undefined : `${identity.subject} (${identity.provider})`
}

/**
 * The names of accounts for the pages' header: looked up from the account store on each page, kept in
 * memory for pages that cannot wait for the database (an error page during an outage). Provider emails
 * are informational (never a key): they are remembered from the sign-in, in memory only.
 */
export class AccountNames {
  #lookup: SignInMethodLookup | undefined
  readonly #shown = new Map<string, string>()
  readonly #emails = new Map<string, string>()

  /** Where sign-in methods come from (set once the account service exists). */
  use(lookup: SignInMethodLookup): void {
    this.#lookup = lookup
  }

  /** The email a provider gave when `accountId` signed in with it. */
  rememberEmail(accountId: string, email: string): void {
    remember(this.#emails, accountId, email)
  }

  /** The name last shown for `accountId`, without asking the database. */
  known(accountId: string): string | undefined {
    return this.#shown.get(accountId)
  }

  /** The account's name now; the last known one when the store does not answer. */
  async resolve(accountId: string): Promise<string | undefined> {
    const lookup = this.#lookup
    if (lookup === undefined) return this.known(accountId)
    let methods: readonly SignInMethod[] | null
    try {
      methods = await lookup(accountId)
    } catch {
      // The page itself reports an outage; a name is never a reason to fail it.
      return this.known(accountId)
    }
    if (methods === null) return undefined
    const name = accountName(methods, this.#emails.get(accountId), this.known(accountId))
    if (name !== undefined) remember(this.#shown, accountId, name)
    return name
  }
}
