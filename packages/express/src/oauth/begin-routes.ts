import { OAUTH_STEP_UP_PURPOSES } from '@portcullis/core/oidc'
import { HttpProblem, problems } from '@portcullis/http/problem'
import type { Request, Response } from 'express'
import { beginAndAnswer, type OAuthRouteContext, requireSession } from './context.js'
import { field, OAUTH_NOT_FOUND, providerOf, stepUpTokenOf } from './http.js'

const MAX_SCOPES = 64

function returnToOf(source: unknown): { returnTo?: string } {
  const returnTo = field(source, 'return_to')
  return returnTo === undefined ? {} : { returnTo }
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
export function login(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await context.options.currentSession(request)
    await beginAndAnswer(context, request, response, {
      operation: 'login',
      provider,
      browserBinding: context.binding.read(request.headers.cookie),
      ...returnToOf(request.query),
      ...(session === undefined ? {} : { session: { sessionHandle: session.sessionHandle } }),
    })
  }
}

/** `POST link`: links the provider to the signed-in account; needs a step-up credential `oauth-link`. */
export function link(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await requireSession(context, request)
    const purpose = OAUTH_STEP_UP_PURPOSES.link
    await beginAndAnswer(context, request, response, {
      operation: 'link',
      provider,
      session,
      stepUpToken: stepUpTokenOf(request, response, context.stepUp, purpose),
      browserBinding: context.binding.read(request.headers.cookie),
      ...returnToOf(request.body),
    })
    context.emit({
      type: 'step_up.consumed',
      accountId: session.accountId,
      purpose,
      sessionHandle: session.sessionHandle,
    })
  }
}

/** `POST scopes`: asks the provider for more scopes; needs a step-up credential `oauth-scope-upgrade`. */
export function scopes(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await requireSession(context, request)
    const requested = scopesOf(request.body)
    const purpose = OAUTH_STEP_UP_PURPOSES.scopeUpgrade
    await beginAndAnswer(context, request, response, {
      operation: 'scope-upgrade',
      provider,
      session,
      scopes: requested,
      stepUpToken: stepUpTokenOf(request, response, context.stepUp, purpose),
      browserBinding: context.binding.read(request.headers.cookie),
      ...returnToOf(request.body),
    })
    context.emit({
      type: 'step_up.consumed',
      accountId: session.accountId,
      purpose,
      sessionHandle: session.sessionHandle,
    })
  }
}

/** `POST revalidate`: proves the browser still controls the linked identity (no credential). */
export function revalidate(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const session = await requireSession(context, request)
    await beginAndAnswer(context, request, response, {
      operation: 'revalidate',
      provider,
      session,
      browserBinding: context.binding.read(request.headers.cookie),
      ...returnToOf(request.body),
    })
  }
}

/**
 * `POST reauthenticate/{purpose}`: fresh authentication at the provider for one purpose of its
 * `OIDCReauthenticationPolicy`. Providers that cannot reauthenticate and purposes outside the policy
 * are the same 404 (`oauth.not_found`) as an unknown provider.
 */
export function reauthenticate(context: OAuthRouteContext) {
  return async (request: Request, response: Response): Promise<void> => {
    const provider = providerOf(request, context.providers)
    const purpose = request.params.purpose
    if (typeof purpose !== 'string' || !context.lifecycle.canReauthenticate(provider, purpose)) {
      throw new HttpProblem(OAUTH_NOT_FOUND)
    }
    const session = await requireSession(context, request)
    await beginAndAnswer(context, request, response, {
      operation: 'reauthenticate',
      provider,
      purpose,
      session,
      browserBinding: context.binding.read(request.headers.cookie),
      ...returnToOf(request.body),
    })
  }
}
