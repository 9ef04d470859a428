import type { BeginOAuthInput, LocalSession, OAuthLifecycleService } from '@portcullis/core/oidc'
import type { OAuthBindingCookie } from '@portcullis/http/cookies'
import { HttpProblem, problems } from '@portcullis/http/problem'
import type { Request, Response } from 'express'
import type { Security } from '../security/create-security.js'
import { type emitter, seeOther, wantsJson } from './http.js'
import type { OAuthRoutesOptions } from './options.js'

/** What every OAuth route handler shares. */
export interface OAuthRouteContext {
  readonly options: OAuthRoutesOptions
  readonly lifecycle: OAuthLifecycleService
  readonly providers: ReadonlySet<string>
  readonly binding: OAuthBindingCookie
  readonly stepUp: Security['stepUp']
  readonly emit: ReturnType<typeof emitter>
}

/** The request's verified local session, or 401. */
export async function requireSession(context: OAuthRouteContext, request: Request): Promise<LocalSession> {
  const session = await context.options.currentSession(request)
  if (session === undefined) throw new HttpProblem(problems.authenticationRequired)
  return session
}

/**
 * Starts a round trip and answers it: the browser-binding cookie, then a 303 to the provider, or
 * `{ operation, provider, redirectUrl, expiresAt }` for a client that asked for JSON.
 */
export async function beginAndAnswer(
  context: OAuthRouteContext,
  request: Request,
  response: Response,
  input: BeginOAuthInput,
): Promise<void> {
  const begun = await context.lifecycle.begin(input)
  response.append('Set-Cookie', context.binding.serialize(begun.browserBinding))
  if (wantsJson(request)) {
    response.json({
      operation: begun.operation,
      provider: begun.provider,
      redirectUrl: begun.redirectUrl,
      expiresAt: begun.expiresAt.toISOString(),
    })
    return
  }
  seeOther(response, begun.redirectUrl)
}
