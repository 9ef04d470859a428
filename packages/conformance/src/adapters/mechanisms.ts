import {
  type AuthenticationMechanism,
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

/** A bearer mechanism over a fixed token table (`Authorization: Bearer <token>`): pure test logic. */
export function staticBearer(
  tokens: Readonly<Record<string, StaticCredential>>,
  name = 'bearer',
): AuthenticationMechanism {
  return {
    name,
    securityScheme: { type: 'http', scheme: 'bearer', bearerFormat: 'opaque' },
    authenticate(source) {
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
    },
  }
}

/** An API-key mechanism (`x-api-key`) whose store can be switched off to answer `unavailable`. */
export function switchableApiKey(keys: Readonly<Record<string, StaticCredential>>, name = 'api-key') {
  const state = { down: false, retryAfterSeconds: undefined as number | undefined }
  const mechanism: AuthenticationMechanism = {
    name,
    securityScheme: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    async authenticate(source) {
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
    },
  }
  return { mechanism, state }
}

export const alice: Principal = { id: 'alice', kind: 'user' }
export const bob: Principal = { id: 'bob', kind: 'user' }
export const ci: Principal = { id: 'ci', kind: 'service' }
