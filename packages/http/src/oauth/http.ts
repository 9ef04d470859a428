import { emitSecurityEvent, type SecurityEvent } from '@portcullis/core/local-accounts'
import type { HttpExchange } from '../exchange/exchange.js'
import { HttpProblem, type ProblemInit } from '../problem/problem.js'
import type { OAuthRouteTableOptions, StepUpTransport } from './options.js'

/**
 * Unknown providers, and reauthentication for a provider that cannot reauthenticate or a purpose its
 * policy lacks: one code, one body, so a caller cannot tell which it was.
 */
export const OAUTH_NOT_FOUND: ProblemInit = Object.freeze({
  status: 404,
  code: 'oauth.not_found',
  detail: 'Not found',
})

/** One string field of a JSON or form body, or of the query string; a repeated or non-string value is 400. */
export function field(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined
  const value = Object.hasOwn(source, name) ? (source as Record<string, unknown>)[name] : undefined
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value.length > 4096) {
    throw new HttpProblem({ status: 400, code: 'request.invalid', detail: 'The request is malformed' })
  }
  return value
}

/** The provider path parameter, when it names a registered provider. */
export function providerOf(exchange: HttpExchange, providers: ReadonlySet<string>): string {
  const provider = exchange.params.provider
  if (typeof provider !== 'string' || !providers.has(provider)) throw new HttpProblem(OAUTH_NOT_FOUND)
  return provider
}

/**
 * The step-up credential for `purpose`: the step-up header, or else the purpose's step-up cookie (which is
 * then deleted at once, whatever the answer: the lifecycle consumes or burns whatever is presented).
 * Empty when there is none, which the lifecycle refuses as `oidc.step_up.required`.
 */
export function stepUpTokenOf(exchange: HttpExchange, stepUp: StepUpTransport, purpose: string): string {
  const header = exchange.header(stepUp.header)
  if (header !== undefined) return header
  const cookies = stepUp.cookies
  if (cookies === undefined) return ''
  const read = cookies.read(exchange.cookieHeader, purpose)
  if (read.kind === 'absent') return ''
  exchange.appendSetCookie(cookies.clear(purpose))
  return read.kind === 'present' ? read.value : ''
}

type EventInput = SecurityEvent extends infer E ? (E extends SecurityEvent ? Omit<E, 'at'> : never) : never

/** Emits to the application's sink without ever failing the request. */
export function emitter(options: Pick<OAuthRouteTableOptions<unknown>, 'events' | 'onEventSinkError'>) {
  const sink = options.events
  if (sink === undefined) return (_event: EventInput) => {}
  return (event: EventInput) =>
    emitSecurityEvent(sink, { ...event, at: new Date() } as SecurityEvent, options.onEventSinkError)
}
