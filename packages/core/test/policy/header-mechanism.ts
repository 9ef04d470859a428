import type {
  AuthenticationMechanism,
  AuthenticationOutcome,
  CredentialRestrictions,
  CredentialSource,
} from '../../src/authentication/index.js'
import { authenticated, invalid, none, unavailable } from '../../src/authentication/index.js'

/**
 * A test mechanism reading header `x-<name>`:
 *   absent -> none; `ok:<id>` -> authenticated user <id>; `svc:<id>` -> service <id>;
 *   `bad` -> invalid; `down` / `down:<seconds>` -> unavailable; `throw` -> throws.
 * `delayMs` lets tests control completion order; `sync` answers without a promise (throws then throw
 * synchronously); `calls` counts authenticate calls.
 */
export interface HeaderMechanism extends AuthenticationMechanism {
  readonly calls: number
}

export function headerMechanism(
  name: string,
  options: {
    default?: boolean
    delayMs?: number
    sync?: boolean
    restrictions?: CredentialRestrictions
  } = {},
): HeaderMechanism {
  let calls = 0
  const outcome = (value: string | undefined): AuthenticationOutcome => {
    if (value === undefined) return none()
    if (value === 'bad') return invalid(`${name}: bad`)
    if (value === 'throw') throw new Error(`${name} exploded with secret hunter2`)
    if (value === 'down') return unavailable(`${name}: down`)
    if (value.startsWith('down:')) return unavailable(`${name}: down`, Number(value.slice(5)))
    const [kind, id] = value.split(':')
    if ((kind === 'ok' || kind === 'svc') && id !== undefined && id !== '') {
      return authenticated(
        { id, kind: kind === 'ok' ? 'user' : 'service' },
        {
          mechanism: name,
          credentialType: `${name}-header`,
          ...(options.restrictions === undefined ? {} : { restrictions: options.restrictions }),
        },
      )
    }
    return invalid(`${name}: malformed`)
  }
  return {
    name,
    ...(options.default === undefined ? {} : { default: options.default }),
    securityScheme: { type: 'apiKey', in: 'header', name: `x-${name}` },
    get calls() {
      return calls
    },
    authenticate(source: CredentialSource) {
      calls += 1
      if (options.sync === true) return outcome(source.header(`x-${name}`))
      return new Promise<void>((resolve) => setTimeout(resolve, options.delayMs ?? 0)).then(() =>
        outcome(source.header(`x-${name}`)),
      )
    },
  }
}

/** A credential source over a plain header map. */
export function sourceOf(headers: Readonly<Record<string, string>>): CredentialSource {
  return {
    header: (name) => headers[name],
    cookie: () => undefined,
    method: 'GET',
    path: '/',
  }
}
