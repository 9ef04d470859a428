/// <reference path="./email-providers.d.ts" />
import { ConfigurationError } from '@portcullis/core/errors'

/**
 * Where the list comes from: `email-providers` 2.26.0 (ISC), the domains of free-mail and disposable
 * providers, maintained upstream and released monthly. Its data ships in the package: installing it
 * runs no script and fetches nothing.
 */
export const FREE_MAIL_DOMAINS_SOURCE = 'email-providers@2.26.0'

let loading: Promise<ReadonlySet<string>> | undefined

/**
 * The free-mail domains no organization may claim (`createOrganizationDomains({ freeMailDomains })`),
 * loaded once per process on first use: the same frozen set every time, lower-cased. A missing list is
 * `configuration.invalid_option`.
 */
export function freeMailDomains(): Promise<ReadonlySet<string>> {
  loading ??= import('email-providers').then((module) => {
    const list: unknown = module.default
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
