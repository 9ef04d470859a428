import { ConfigurationError } from '../../errors/portcullis-error.js'
import { DEFAULT_MIN_PASSWORD_LENGTH } from './password.js'
import {
  PASSWORD_ACCEPTED,
  type PasswordScreen,
  type PasswordScreenContext,
  type PasswordScreenVerdict,
  refusedByContext,
  screeningForm,
  withoutContext,
} from './password-screen.js'

/** Separators and symbols at the ends of what is left once the name is taken out (`-`, ` `, `!`). */
const EDGES = /^[\p{P}\p{S}\p{Z}]+|[\p{P}\p{S}\p{Z}]+$/gu

/** Lists already built into screening form, by the list object: the same list given twice is built once. */
const built = new WeakMap<object, ReadonlySet<string>>()

function screeningSet(list: Iterable<string>): ReadonlySet<string> {
  const known = built.get(list)
  if (known !== undefined) return known
  const set = new Set(Array.from(list, (word) => screeningForm(String(word))))
  built.set(list, set)
  return set
}

function isPromiseLike(value: unknown): value is PromiseLike<Iterable<string>> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

export interface BlocklistPasswordScreenOptions {
  /**
   * More passwords to refuse (the service's name, its domain, words of its trade), compared the same way
   * (NFKC, lower case). They are also refused as parts of a password, as the username is.
   */
  readonly words?: readonly string[]
  /**
   * The common passwords to refuse: an iterable, or a promise of one (a list still loading; the first
   * screen waits for it). `commonPasswords()` of `@portcullis/password-blocklist` is the maintained list;
   * `commonPasswordScreen()` there is this screen over it. Built into a `Set` once per list object.
   */
  readonly passwords: Iterable<string> | PromiseLike<Iterable<string>>
  /**
   * The length a password must keep once the username, addresses and `words` are taken out of it.
   * Default 8, as `passwordRules().minLength`.
   */
  readonly minRemainingLength?: number
}

/**
 * The offline screen: refuses a password that is on the blocklist (`passwords`, plus `words`), compared
 * case-insensitively after NFKC normalisation, and one made of the account's username or address. The
 * lookup is a `Set` built once; nothing leaves the process. Without `passwords` it is `local.invalid_config`:
 * a screen that silently refused nothing would not be a screen.
 */
export function blocklistPasswordScreen(options: BlocklistPasswordScreenOptions): PasswordScreen {
  const given = (options as Partial<BlocklistPasswordScreenOptions> | undefined)?.passwords
  if (given === undefined || given === null || (typeof given !== 'object' && typeof given !== 'function')) {
    throw new ConfigurationError(
      'local.invalid_config',
      'blocklistPasswordScreen needs passwords (commonPasswords() of @portcullis/password-blocklist, or a list of your own)',
    )
  }
  const words = (options.words ?? []).map((word) => {
    if (typeof word !== 'string' || word.trim() === '') {
      throw new ConfigurationError('local.invalid_config', 'blocklist words must be non-empty strings')
    }
    return word
  })
  const minRemaining = options.minRemainingLength ?? DEFAULT_MIN_PASSWORD_LENGTH
  if (!Number.isInteger(minRemaining) || minRemaining < 1) {
    throw new ConfigurationError('local.invalid_config', 'minRemainingLength must be a positive integer')
  }
  const extra = new Set(words.map(screeningForm))
  if (!isPromiseLike(given) && typeof (given as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new ConfigurationError('local.invalid_config', 'passwords must be an iterable of strings')
  }
  const listed: Promise<ReadonlySet<string>> = isPromiseLike(given)
    ? Promise.resolve(given).then(screeningSet)
    : Promise.resolve(screeningSet(given))
  // A failed load surfaces on the first screen, not as an unhandled rejection at startup.
  listed.catch(() => undefined)
  return {
    async screen(password: string, context: PasswordScreenContext): Promise<PasswordScreenVerdict> {
      const form = screeningForm(password)
      const list = await listed
      if (extra.has(form) || list.has(form)) return { accepted: false, reason: 'common' }
      if (refusedByContext(password, context, minRemaining, words))
        return { accepted: false, reason: 'context' }
      // The name around a listed password (`alice123456`, `password-alice`) is still a listed password.
      const { rest } = withoutContext(password, context, words)
      if (rest !== form && list.has(rest.replace(EDGES, ''))) return { accepted: false, reason: 'context' }
      return PASSWORD_ACCEPTED
    },
  }
}
