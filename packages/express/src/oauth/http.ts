import { emitSecurityEvent, type SecurityEvent } from '@portcullis/core/local-accounts'
import { HttpProblem, type ProblemInit } from '@portcullis/http/problem'
import type { NextFunction, Request, Response } from 'express'
import type { Security } from '../security/create-security.js'
import { singleHeader } from '../security/credential-source.js'
import type { OAuthRoutesOptions } from './options.js'

/**
 * Unknown providers, and reauthentication for a provider that cannot reauthenticate or a purpose its
 * policy lacks: one code, one body, so a caller cannot tell which it was.
 */
export const OAUTH_NOT_FOUND: ProblemInit = Object.freeze({
  status: 404,
  code: 'oauth.not_found',
  detail: 'Not found',
})

/** First handler of every OAuth route: nothing these routes answer may be cached. */
export function noStore(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Cache-Control', 'no-store')
  next()
}

/** True when the client asked for JSON rather than a browser redirect. */
export function wantsJson(request: Request): boolean {
  return request.accepts(['text/html', 'application/json']) === 'application/json'
}

/** A 303 to `location`, without a body. */
export function seeOther(response: Response, location: string): void {
  response.status(303).location(location).end()
}

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
export function providerOf(request: Request, providers: ReadonlySet<string>): string {
  const provider = request.params.provider
  if (typeof provider !== 'string' || !providers.has(provider)) throw new HttpProblem(OAUTH_NOT_FOUND)
  return provider
}

/**
 * The step-up credential for `purpose`: the step-up header, or else the purpose's step-up cookie (which is
 * then deleted: the lifecycle consumes or burns whatever is presented). Empty when there is none, which
 * the lifecycle refuses as `oidc.step_up.required`.
 */
export function stepUpTokenOf(
  request: Request,
  response: Response,
  stepUp: Security['stepUp'],
  purpose: string,
): string {
  const header = singleHeader(request, stepUp.header)
  if (header !== undefined) return header
  const cookies = stepUp.cookies
  if (cookies === undefined) return ''
  const read = cookies.read(request.headers.cookie, purpose)
  if (read.kind === 'absent') return ''
  response.append('Set-Cookie', cookies.clear(purpose))
  return read.kind === 'present' ? read.value : ''
}

type EventInput = SecurityEvent extends infer E ? (E extends SecurityEvent ? Omit<E, 'at'> : never) : never

/** Emits to the application's sink without ever failing the request. */
export function emitter(options: OAuthRoutesOptions): (event: EventInput) => void {
  const sink = options.events
  if (sink === undefined) return () => {}
  return (event) =>
    emitSecurityEvent(sink, { ...event, at: new Date() } as SecurityEvent, options.onEventSinkError)
}
