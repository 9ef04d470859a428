import { OAUTH_STEP_UP_PURPOSES } from '@portcullis/core/oidc'
import type { HttpAnswer, HttpExchange } from '../exchange/exchange.js'
import { HttpProblem, problems } from '../problem/problem.js'
import { beginAndAnswer, type OAuthRouteContext, requireSession } from './context.js'
import { field, OAUTH_NOT_FOUND, providerOf, stepUpTokenOf } from './http.js'
import { OAUTH_MAX_BODY_BYTES } from './options.js'

const MAX_SCOPES = 64

type Handler<N> = (exchange: HttpExchange<N>) => Promise<HttpAnswer>

function returnToOf(source: unknown): { returnTo?: string } {
  const returnTo = field(source, 'return_to')
  return returnTo === undefined ? {} : { returnTo }
}

/** The query string as an object; a repeated parameter is a list (which `field` refuses). */
export function queryObject(query: string): Record<string, string | string[]> {
  const object: Record<string, string | string[]> = Object.create(null)
  for (const [key, value] of new URLSearchParams(query)) {
    const present = object[key]
    object[key] = present === undefined ? value : [...(Array.isArray(present) ? present : [present]), value]
  }
  return object
}

/** `scopes` as a JSON array of strings or a space-separated form field. */
function scopesOf(body: unknown): string[] {
  const value = typeof body === 'object' && body !== null ? (body as { scopes?: unknown }).scopes : undefined
  const list =
    typeof value === 'string'
      ? value.split(' ').filter((scope) => scope !== '')
      : Array.isArray(value) && value.every((scope) => typeof scope === 'string')
        ? (value as string[])
        : undefined
  if (list === undefined || list.length === 0 || list.length > MAX_SCOPES) {
    throw new HttpProblem(problems.invalidRequest)
  }
  return list
}

/** `GET login`: begins a sign-in; bound to the browser's current session when it has one. */
export function login<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await context.options.currentSession(exchange)
    return beginAndAnswer(context, exchange, {
      operation: 'login',
      provider,
      browserBinding: context.binding.read(exchange.cookieHeader),
      ...returnToOf(queryObject(exchange.query)),
      ...(session === undefined ? {} : { session: { sessionHandle: session.sessionHandle } }),
    })
  }
}

/** `POST link`: links the provider to the signed-in account; needs a step-up credential `oauth-link`. */
export function link<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await requireSession(context, exchange)
    const body = await exchange.body(context.options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES)
    const purpose = OAUTH_STEP_UP_PURPOSES.link
    const answer = await beginAndAnswer(context, exchange, {
      operation: 'link',
      provider,
      session,
      stepUpToken: stepUpTokenOf(exchange, context.options.stepUp, purpose),
      browserBinding: context.binding.read(exchange.cookieHeader),
      ...returnToOf(body),
    })
    context.emit({
      type: 'step_up.consumed',
      accountId: session.accountId,
      purpose,
      sessionHandle: session.sessionHandle,
    })
    return answer
  }
}

/** `POST scopes`: asks the provider for more scopes; needs a step-up credential `oauth-scope-upgrade`. */
export function scopes<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await requireSession(context, exchange)
    const body = await exchange.body(context.options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES)
    const requested = scopesOf(body)
    const purpose = OAUTH_STEP_UP_PURPOSES.scopeUpgrade
    const answer = await beginAndAnswer(context, exchange, {
      operation: 'scope-upgrade',
      provider,
      session,
      scopes: requested,
      stepUpToken: stepUpTokenOf(exchange, context.options.stepUp, purpose),
      browserBinding: context.binding.read(exchange.cookieHeader),
      ...returnToOf(body),
    })
    context.emit({
      type: 'step_up.consumed',
      accountId: session.accountId,
      purpose,
      sessionHandle: session.sessionHandle,
    })
    return answer
  }
}

/** `POST revalidate`: proves the browser still controls the linked identity (no credential). */
export function revalidate<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const session = await requireSession(context, exchange)
    return beginAndAnswer(context, exchange, {
      operation: 'revalidate',
      provider,
      session,
      browserBinding: context.binding.read(exchange.cookieHeader),
      ...returnToOf(await exchange.body(context.options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES)),
    })
  }
}

/**
 * `POST reauthenticate/{purpose}`: fresh authentication at the provider for one purpose of its
 * `OIDCReauthenticationPolicy`. Providers that cannot reauthenticate and purposes outside the policy
 * are the same 404 (`oauth.not_found`) as an unknown provider.
 */
export function reauthenticate<N>(context: OAuthRouteContext<N>): Handler<N> {
  return async (exchange) => {
    const provider = providerOf(exchange, context.providers)
    const purpose = exchange.params.purpose
    if (typeof purpose !== 'string' || !context.lifecycle.canReauthenticate(provider, purpose)) {
      throw new HttpProblem(OAUTH_NOT_FOUND)
    }
    const session = await requireSession(context, exchange)
    return beginAndAnswer(context, exchange, {
      operation: 'reauthenticate',
      provider,
      purpose,
      session,
      browserBinding: context.binding.read(exchange.cookieHeader),
      ...returnToOf(await exchange.body(context.options.maxBodyBytes ?? OAUTH_MAX_BODY_BYTES)),
    })
  }
}
