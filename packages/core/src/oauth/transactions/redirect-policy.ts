import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { OAuthTransactionInvalidError } from './errors.js'
import { hasControlCharacter, isLabel } from './transaction.js'

export interface OAuthRedirectPolicyOptions {
  /** Provider name -> the exact callback URIs registered at that provider. */
  readonly callbackUris: Readonly<Record<string, readonly string[]>>
  /** Where a finished flow may send the browser: local paths or URLs on a callback origin. Default `['/']`. */
  readonly returnTo?: readonly string[]
  /** Allow `http://localhost`, `http://127.0.0.1` and `http://[::1]` callbacks, for local development only. */
  readonly allowInsecureLocalhost?: boolean
}

const INVALID = 'oauth.redirect_policy.invalid'
const POLICY_OPTIONS: OptionsShape<OAuthRedirectPolicyOptions> = {
  callbackUris: { required: true, kind: 'object', code: INVALID },
  returnTo: { kind: 'array', code: INVALID },
  allowInsecureLocalhost: { kind: 'boolean' },
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

function refuse(what: string, value: string, rule: string): ConfigurationError {
  return new ConfigurationError('oauth.redirect_policy.invalid', `${what} ${JSON.stringify(value)} ${rule}`)
}

function callbackUrl(uri: unknown, allowInsecureLocalhost: boolean): URL {
  if (typeof uri !== 'string' || uri.length > 2048) {
    throw new ConfigurationError(
      'oauth.redirect_policy.invalid',
      'callback URIs must be strings of at most 2048 characters',
    )
  }
  if (hasControlCharacter(uri) || uri.includes(' ') || uri.includes('\\') || uri.includes('*')) {
    throw refuse('callback URI', uri, 'must not contain whitespace, backslashes or wildcards')
  }
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    throw refuse('callback URI', uri, 'must be an absolute URL')
  }
  if (url.username !== '' || url.password !== '')
    throw refuse('callback URI', uri, 'must not contain userinfo')
  if (uri.includes('#')) throw refuse('callback URI', uri, 'must not contain a fragment')
  const insecureAllowed = allowInsecureLocalhost && url.protocol === 'http:' && LOOPBACK.has(url.hostname)
  if (url.protocol !== 'https:' && !insecureAllowed) {
    throw refuse(
      'callback URI',
      uri,
      'must use https (http only for loopback hosts with allowInsecureLocalhost)',
    )
  }
  if (url.href !== uri) throw refuse('callback URI', uri, `must be written in canonical form (${url.href})`)
  return url
}

function checkReturnTo(entry: unknown, origins: ReadonlySet<string>): string {
  if (typeof entry !== 'string' || entry.length === 0 || entry.length > 2048) {
    throw new ConfigurationError(
      'oauth.redirect_policy.invalid',
      'returnTo entries must be non-empty strings',
    )
  }
  if (
    hasControlCharacter(entry) ||
    entry.includes(' ') ||
    entry.includes('\\') ||
    entry.includes('*') ||
    entry.includes('#')
  ) {
    throw refuse('returnTo', entry, 'must not contain whitespace, backslashes, wildcards or fragments')
  }
  if (entry.startsWith('/')) {
    if (entry.startsWith('//')) throw refuse('returnTo', entry, 'must not be protocol-relative')
    return entry
  }
  let url: URL
  try {
    url = new URL(entry)
  } catch {
    throw refuse('returnTo', entry, 'must be a path starting with "/" or an absolute URL')
  }
  if (url.href !== entry || url.username !== '' || url.password !== '' || !origins.has(url.origin)) {
    throw refuse('returnTo', entry, 'must be a canonical URL on the origin of a callback URI')
  }
  return entry
}

/**
 * Exact allow-list of callback URIs per provider and of `return_to` targets. Configuration is validated
 * once; request values are then compared by exact string membership, so a trailing slash, `//evil`, a
 * foreign origin or another provider's callback never matches.
 */
export class OAuthRedirectPolicy {
  readonly #callbacks: ReadonlyMap<string, ReadonlySet<string>>
  readonly #returnTo: ReadonlySet<string>

  constructor(options: OAuthRedirectPolicyOptions) {
    readOptions(options, 'OAuthRedirectPolicy', POLICY_OPTIONS)
    const entries = Object.entries(options.callbackUris)
    if (entries.length === 0) {
      throw new ConfigurationError(
        'oauth.redirect_policy.invalid',
        'at least one provider callback URI is required',
      )
    }
    const allowInsecure = options.allowInsecureLocalhost === true
    const callbacks = new Map<string, ReadonlySet<string>>()
    const origins = new Set<string>()
    for (const [provider, uris] of entries) {
      if (!isLabel(provider, 128)) {
        throw new ConfigurationError('oauth.redirect_policy.invalid', 'provider names must be non-blank')
      }
      if (!Array.isArray(uris) || uris.length === 0) {
        throw new ConfigurationError(
          'oauth.redirect_policy.invalid',
          `provider ${provider} needs a callback URI`,
        )
      }
      for (const uri of uris) origins.add(callbackUrl(uri, allowInsecure).origin)
      callbacks.set(provider, new Set(uris))
    }
    const returnTo = options.returnTo ?? ['/']
    if (!Array.isArray(returnTo) || returnTo.length === 0) {
      throw new ConfigurationError('oauth.redirect_policy.invalid', 'returnTo must list at least one target')
    }
    this.#callbacks = callbacks
    this.#returnTo = new Set(returnTo.map((entry) => checkReturnTo(entry, origins)))
  }

  /** True when both values are allow-listed for the provider, compared exactly. */
  allows(provider: string, redirectUri: string, returnTo: string): boolean {
    const callbacks = this.#callbacks.get(provider)
    return callbacks?.has(redirectUri) === true && this.#returnTo.has(returnTo)
  }

  /** Throws `OAuthTransactionInvalidError` unless `allows(...)`. */
  validate(provider: string, redirectUri: string, returnTo: string): void {
    if (!this.allows(provider, redirectUri, returnTo)) {
      throw new OAuthTransactionInvalidError(
        'oauth.transaction.redirect_not_allowed',
        'redirect URI or return target is not allowed',
      )
    }
  }
}
