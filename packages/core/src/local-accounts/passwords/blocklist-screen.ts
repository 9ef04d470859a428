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

/**
 * Where the bundled list comes from: the `passwords-common` dictionary of `@zxcvbn-ts/language-common`
 * 4.1.3 (MIT), 49,233 common passwords, most frequent first.
 */
export const BUNDLED_BLOCKLIST_SOURCE = '@zxcvbn-ts/language-common@4.1.3 passwords-common'

/** Separators and symbols at the ends of what is left once the name is taken out (`-`, ` `, `!`). */
const EDGES = /^[\p{P}\p{S}\p{Z}]+|[\p{P}\p{S}\p{Z}]+$/gu

let bundled: Promise<ReadonlySet<string>> | undefined

/** The bundled list in screening form, loaded and built into a `Set` once per process, on first use. */
export function bundledBlocklist(): Promise<ReadonlySet<string>> {
  bundled ??= import('@zxcvbn-ts/language-common').then((module) => {
    const words = module.dictionary['passwords-common']
    if (!Array.isArray(words) || words.length === 0) {
      throw new ConfigurationError('local.invalid_config', 'the bundled password blocklist is missing')
    }
    return new Set(words.map((word) => screeningForm(String(word))))
  })
  return bundled
}

export interface BlocklistPasswordScreenOptions {
  /**
   * More passwords to refuse (the service's name, its domain, words of its trade), compared the same way
   * (NFKC, lower case). They are also refused as parts of a password, as the username is.
   */
  readonly words?: readonly string[]
  /** Replaces the bundled list (an iterable of passwords); default the bundled list. */
  readonly passwords?: Iterable<string>
  /**
   * The length a password must keep once the username, addresses and `words` are taken out of it.
   * Default 8, as `passwordRules().minLength`.
   */
  readonly minRemainingLength?: number
}

/**
 * The offline screen: refuses a password that is on the blocklist (the bundled list of common passwords
 * unless `passwords` replaces it, plus `words`), compared case-insensitively after NFKC normalisation,
 * and one made of the account's username or address. The lookup is a `Set` built once; nothing leaves
 * the process.
 */
export function blocklistPasswordScreen(options: BlocklistPasswordScreenOptions = {}): PasswordScreen {
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
  const given = options.passwords
  const listed: Promise<ReadonlySet<string>> =
    given === undefined
      ? bundledBlocklist()
      : Promise.resolve(new Set(Array.from(given, (word) => screeningForm(String(word)))))
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
