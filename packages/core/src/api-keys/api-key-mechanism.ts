import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import {
  type AuthenticationOutcome,
  authenticated,
  invalid,
  none,
  unavailable,
} from '../authentication/outcome.js'
import type { AuthenticationEvidence } from '../authentication/principal.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { type ApiKeyRecord, apiKeyEnd } from './api-key-record.js'
import type { ApiKeyService, ApiKeyVerification } from './api-key-service.js'
import type { ApiKeyUsageRecorder } from './api-key-usage-recorder.js'

export interface ApiKeyMechanismOptions {
  readonly service: ApiKeyService
  /** Default `api-key`. */
  readonly name?: string
  readonly default?: boolean
  /** Request header carrying the key. Default `x-api-key`. */
  readonly header?: string
  /** Where last-use times go, off the request path. Omit to not track usage. */
  readonly usage?: ApiKeyUsageRecorder
  /** Milliseconds since the epoch, for usage times. Default `Date.now`. */
  readonly clock?: () => number
}

const API_KEY_OPTIONS: OptionsShape<ApiKeyMechanismOptions> = {
  service: { required: true, kind: 'object' },
  name: { kind: 'string' },
  default: { kind: 'boolean' },
  header: { kind: 'string', code: 'api_key.invalid_config' },
  usage: { kind: 'object' },
  clock: { kind: 'function' },
}

const hasRestrictions = (record: ApiKeyRecord): boolean => {
  for (const _ in record.restrictions) return true
  return false
}

/**
 * Authenticates `X-API-Key: <prefix>_<keyId>_<secret>`. A malformed value (including two headers joined
 * by a proxy) is `invalid` without touching the store; a well-formed one costs exactly one `store.get`.
 * The principal is the key's owner; the key's restrictions narrow what the owner is granted.
 */
export function apiKey(options: ApiKeyMechanismOptions): AuthenticationMechanism {
  readOptions(options, 'apiKey', API_KEY_OPTIONS)
  const header = (options.header ?? 'x-api-key').toLowerCase()
  if (!/^[a-z0-9-]{1,64}$/.test(header))
    throw new ConfigurationError('api_key.invalid_config', 'API key header name is invalid')
  const name = options.name ?? 'api-key'
  const clock = options.clock ?? Date.now

  const outcomeOf = (result: ApiKeyVerification): AuthenticationOutcome => {
    if (result.kind === 'malformed') return invalid('api-key: malformed value')
    if (result.kind === 'invalid') return invalid(result.reason)
    if (result.kind === 'unavailable') return unavailable(result.reason, result.retryAfterSeconds)
    const { record } = result
    options.usage?.record(record.keyId, clock())
    const end = apiKeyEnd(record)
    const evidence: { -readonly [K in keyof AuthenticationEvidence]: AuthenticationEvidence[K] } = {
      mechanism: name,
      credentialType: 'api-key',
      attributes:
        record.label === undefined ? { keyId: record.keyId } : { keyId: record.keyId, label: record.label },
    }
    if (hasRestrictions(record)) evidence.restrictions = record.restrictions
    if (end !== undefined) evidence.expiresAt = end
    return authenticated({ id: record.ownerId, kind: record.ownerKind }, evidence)
  }

  return {
    name,
    default: options.default ?? true,
    securityScheme: {
      type: 'apiKey',
      in: 'header',
      name: header,
      description: `API key (${options.service.prefix}_...)`,
    },
    authenticate(source) {
      const value = source.header(header)
      if (value === undefined) return none()
      const result = options.service.verify(value)
      return result instanceof Promise ? result.then(outcomeOf) : outcomeOf(result)
    },
  }
}
