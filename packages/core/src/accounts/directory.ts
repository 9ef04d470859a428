import { normalizeUsername } from '../local-accounts/passwords/username.js'
import { invalid, requireRecord } from '../local-accounts/store-input.js'
import { normalizeEmailAddress } from './email-address.js'
import { type Account, accountRecord } from './records.js'
import { validateAccountId } from './requests.js'

// Finding accounts for the people who run a deployment (administration pages, the operators' CLI): a
// port of its own beside `AccountStore`, which stays the contract of sign-ins and account changes. The
// built-in account stores implement both.

/**
 * What a search looks at: `id` an exact account id, `username` an exact (normalized) username, `email` an
 * exact (normalized) address, verified or not, `prefix` the start of a username or of an address.
 */
export type AccountSearchField = 'id' | 'username' | 'email' | 'prefix'

export interface AccountSearchQuery {
  readonly by: AccountSearchField
  readonly value: string
  /** Most hits, 1-100. Default 20. */
  readonly limit?: number
}

/** One match: the account, its username and the address that matched (else its primary address). */
export interface AccountSearchHit {
  readonly account: Account
  readonly username: string | null
  /** The address that matched (`email`, or a `prefix` that matched an address), else the primary, or null. */
  readonly email: string | null
  /** What matched: the account id, its username, or one of its addresses. */
  readonly matched: 'id' | 'username' | 'email'
}

/**
 * Port: finding accounts, for administrators and operators (never on the request path of a sign-in).
 * Each search is one indexed query whatever the number of accounts. An `id`, `username` or `email`
 * search is exact; a `prefix` search answers the usernames and addresses that start with the prefix, in
 * code-point order of the matched text (ties by account id), one hit per match (an account with two
 * matching addresses appears twice). Bad input is a typed error (`local.invalid_input`,
 * `local.invalid_username`, `email.invalid_address`) and reads nothing.
 */
export interface AccountDirectory {
  searchAccounts(query: AccountSearchQuery): Promise<readonly AccountSearchHit[]>
}

export const DEFAULT_ACCOUNT_SEARCH_LIMIT = 20
export const MAX_ACCOUNT_SEARCH_LIMIT = 100
/** A prefix is at most as long as the longest address. */
export const MAX_ACCOUNT_SEARCH_PREFIX = 254

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/** A search after validation: the value in the form the store compares (normalized, lower case). */
export interface ValidatedAccountSearch {
  readonly by: AccountSearchField
  readonly value: string
  readonly limit: number
}

/** Checks and normalizes a search the way every directory must read it. */
export function validateAccountSearch(query: unknown): ValidatedAccountSearch {
  const fields = requireRecord(query, 'query')
  const limit = fields.limit ?? DEFAULT_ACCOUNT_SEARCH_LIMIT
  if (
    typeof limit !== 'number' ||
    !Number.isSafeInteger(limit) ||
    limit < 1 ||
    limit > MAX_ACCOUNT_SEARCH_LIMIT
  ) {
    throw invalid(`limit must be an integer 1-${MAX_ACCOUNT_SEARCH_LIMIT}`)
  }
  const raw = fields.value
  switch (fields.by) {
    case 'id':
      return { by: 'id', value: validateAccountId(raw), limit }
    case 'username':
      return { by: 'username', value: normalizeUsername(raw), limit }
    case 'email':
      return { by: 'email', value: normalizeEmailAddress(raw), limit }
    case 'prefix': {
      if (typeof raw !== 'string') throw invalid('value must be a string')
      const value = raw.normalize('NFKC').trim().toLowerCase()
      if (value.length === 0 || value.length > MAX_ACCOUNT_SEARCH_PREFIX || CONTROL.test(value)) {
        throw invalid(`a prefix must be 1-${MAX_ACCOUNT_SEARCH_PREFIX} characters without control characters`)
      }
      return { by: 'prefix', value, limit }
    }
    default:
      throw invalid('by must be id, username, email or prefix')
  }
}

/** A frozen hit with a copied account record. */
export function accountSearchHit(fields: AccountSearchHit): AccountSearchHit {
  return Object.freeze({
    account: accountRecord(fields.account),
    username: fields.username,
    email: fields.email,
    matched: fields.matched,
  })
}

/** Code-point order (what `COLLATE "C"` and the stores' pattern indexes give), then account id. */
export function compareSearchHits(a: AccountSearchHit, b: AccountSearchHit): number {
  const text = (hit: AccountSearchHit) =>
    hit.matched === 'username'
      ? (hit.username ?? '')
      : hit.matched === 'email'
        ? (hit.email ?? '')
        : hit.account.accountId
  const [x, y] = [text(a), text(b)]
  if (x !== y) return codePointCompare(x, y)
  return codePointCompare(a.account.accountId, b.account.accountId)
}

function codePointCompare(x: string, y: string): number {
  const a = [...x]
  const b = [...y]
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const p = (a[i] as string).codePointAt(0) as number
    const q = (b[i] as string).codePointAt(0) as number
    if (p !== q) return p - q
  }
  return a.length - b.length
}
