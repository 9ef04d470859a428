import { ConfigurationError } from '@portcullis/core/errors'

/**
 * Where the list comes from: `free-email-domains` 1.12.6 (MIT), a list of free-mail and disposable
 * providers' domains maintained upstream and updated as a package release.
 */
export const FREE_MAIL_DOMAINS_SOURCE = 'free-email-domains@1.12.6'

let loading: Promise<ReadonlySet<string>> | undefined

/**
 * The free-mail domains no organization may claim (`createOrganizationDomains({ freeMailDomains })`),
 * loaded once per process on first use: the same frozen set every time, lower-cased. A missing list is
 * `configuration.invalid_option`.
 */
export function freeMailDomains(): Promise<ReadonlySet<string>> {
  loading ??= import('free-email-domains').then((module) => {
    const list: unknown = (module as { default?: unknown }).default
    if (!Array.isArray(list) || list.length === 0) {
      loading = undefined
      throw new ConfigurationError('configuration.invalid_option', 'the free-mail domain list is missing')
    }
    const domains = new Set<string>()
    for (const entry of list) if (typeof entry === 'string') domains.add(entry.trim().toLowerCase())
    return Object.freeze(domains)
  })
  return loading
}
