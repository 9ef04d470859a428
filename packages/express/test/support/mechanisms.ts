import {
  type AuthenticationMechanism,
  type AuthenticationOutcome,
  authenticated,
  type CredentialRestrictions,
  invalid,
  none,
  type Principal,
  unavailable,
} from '@portcullis/core/authentication'

export interface StaticCredential {
  readonly principal: Principal
  readonly restrictions?: CredentialRestrictions
}

/** A bearer-token mechanism over a fixed token table (`Authorization: Bearer <token>`). */
export function staticBearer(
  tokens: Readonly<Record<string, StaticCredential>>,
  options: { name?: string; default?: boolean; sync?: boolean } = {},
): AuthenticationMechanism & { calls: number } {
  const name = options.name ?? 'bearer'
  const mechanism = {
    name,
    ...(options.default === undefined ? {} : { default: options.default }),
    securityScheme: { type: 'http', scheme: 'bearer', bearerFormat: 'opaque' } as const,
    calls: 0,
    authenticate(source: Parameters<AuthenticationMechanism['authenticate']>[0]) {
      mechanism.calls += 1
      return options.sync === true ? answer(source) : Promise.resolve(source).then(answer)
    },
  }
  function answer(source: Parameters<AuthenticationMechanism['authenticate']>[0]): AuthenticationOutcome {
    const header = source.header('authorization')
    if (header === undefined) return none()
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header)
    if (match === null) return invalid('bearer: malformed header')
    const credential = Object.hasOwn(tokens, match[1] as string) ? tokens[match[1] as string] : undefined
    if (credential === undefined) return invalid('bearer: unknown token')
    return authenticated(credential.principal, {
      mechanism: name,
      credentialType: 'bearer-token',
      ...(credential.restrictions === undefined ? {} : { restrictions: credential.restrictions }),
    })
  }
  return mechanism
}

/**
 * An API-key mechanism over header `x-api-key` whose store can be switched off (`down`) to produce
 * `unavailable` outcomes, with an optional Retry-After hint.
 */
export function switchableApiKey(
  keys: Readonly<Record<string, StaticCredential>>,
  options: { name?: string; default?: boolean; sync?: boolean } = {},
) {
  const state: { down: boolean; retryAfterSeconds?: number; calls: number } = { down: false, calls: 0 }
  const name = options.name ?? 'api-key'
  const mechanism: AuthenticationMechanism = {
    name,
    ...(options.default === undefined ? {} : { default: options.default }),
    securityScheme: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    authenticate(source) {
      state.calls += 1
      return options.sync === true ? answer(source) : Promise.resolve(source).then(answer)
    },
  }
  function answer(source: Parameters<AuthenticationMechanism['authenticate']>[0]): AuthenticationOutcome {
    const value = source.header('x-api-key')
    if (value === undefined) return none()
    if (state.down) return unavailable('api-key: store down', state.retryAfterSeconds)
    const credential = Object.hasOwn(keys, value) ? keys[value] : undefined
    if (credential === undefined) return invalid('api-key: unknown key')
    return authenticated(credential.principal, {
      mechanism: name,
      credentialType: 'api-key',
      ...(credential.restrictions === undefined ? {} : { restrictions: credential.restrictions }),
    })
  }
  return { mechanism, state }
}

export const alice: Principal = { id: 'alice', kind: 'user', displayName: 'Alice' }
export const bob: Principal = { id: 'bob', kind: 'user' }
export const ci: Principal = { id: 'ci', kind: 'service' }
