import type { BeginOAuthInput, LocalSession, OAuthLifecycleService } from '@portcullis/core/oidc'
import type { OAuthBindingCookie } from '../cookies/cookies.js'
import { type HttpAnswer, type HttpExchange, jsonAnswer, seeOther } from '../exchange/exchange.js'
import { HttpProblem, problems } from '../problem/problem.js'
import type { emitter } from './http.js'
import type { OAuthRouteTableOptions } from './options.js'

/** What every OAuth route handler shares. */
export interface OAuthRouteContext<N> {
  readonly options: OAuthRouteTableOptions<N>
  readonly lifecycle: OAuthLifecycleService
  readonly providers: ReadonlySet<string>
  readonly binding: OAuthBindingCookie
  readonly emit: ReturnType<typeof emitter>
}

/** The request's verified local session, or 401. */
export async function requireSession<N>(
  context: OAuthRouteContext<N>,
  exchange: HttpExchange<N>,
): Promise<LocalSession> {
  const session = await context.options.currentSession(exchange)
  if (session === undefined) throw new HttpProblem(problems.authenticationRequired)
  return session
}

/**
 * Starts a round trip and answers it: the browser-binding cookie, then a 303 to the provider, or
 * `{ operation, provider, redirectUrl, expiresAt }` for a client that asked for JSON.
 */
export async function beginAndAnswer<N>(
  context: OAuthRouteContext<N>,
  exchange: HttpExchange<N>,
  input: BeginOAuthInput,
): Promise<HttpAnswer> {
  const begun = await context.lifecycle.begin(input)
  const cookies = [context.binding.serialize(begun.browserBinding)]
  if (!exchange.wantsJson) return seeOther(begun.redirectUrl, cookies)
  const body = {
    operation: begun.operation,
    provider: begun.provider,
    redirectUrl: begun.redirectUrl,
    expiresAt: begun.expiresAt.toISOString(),
  }
  return jsonAnswer(body, 200, cookies)
}
