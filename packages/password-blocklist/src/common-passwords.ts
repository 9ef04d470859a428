import { ConfigurationError } from '@portcullis/core/errors'

/**
 * Where the list comes from: the `passwords-common` dictionary of `@zxcvbn-ts/language-common` 4.1.3
 * (MIT), 49,233 common passwords, most frequent first.
 */
export const COMMON_PASSWORDS_SOURCE = '@zxcvbn-ts/language-common@4.1.3 passwords-common'

let loading: Promise<readonly string[]> | undefined

/**
 * The common passwords, loaded once per process on first use: the same frozen array every time, so
 * `blocklistPasswordScreen({ passwords: commonPasswords() })` builds its `Set` once however many screens
 * share it. A missing dictionary is `local.invalid_config`.
 */
export function commonPasswords(): Promise<readonly string[]> {
  loading ??= import('@zxcvbn-ts/language-common').then((module) => {
    const words: unknown = module.dictionary['passwords-common']
    if (!Array.isArray(words) || words.length === 0) {
      throw new ConfigurationError('local.invalid_config', 'the common-password list is missing')
    }
    return Object.freeze(words.map((word) => String(word)))
  })
  return loading
}
