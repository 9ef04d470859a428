import type { LocalSession, OAuthCallbackOutcome } from '@portcullis/core/oidc'
import { type HttpAnswer, type HttpExchange, jsonAnswer, seeOther } from '../exchange/exchange.js'
import type { OAuthRouteContext } from './context.js'
import { providerOf } from './http.js'

type Outcome<Operation extends OAuthCallbackOutcome['operation']> = Extract<
  OAuthCallbackOutcome,
  { operation: Operation }
>

/** The secret-free JSON form of an outcome; a reauthentication adds its credential (shown this once). */
function outcomeBody(outcome: OAuthCallbackOutcome): Record<string, unknown> {
  const common = { operation: outcome.operation, provider: outcome.provider, returnTo: outcome.returnTo }
  switch (outcome.operation) {
    case 'login':
      return {
        ...common,
        accountId: outcome.accountId,
        providerAccountId: outcome.providerAccountId,
        provisioned: outcome.provisioned,
      }
    case 'link':
      return { ...common, status: outcome.status, providerAccountId: outcome.providerAccountId }
    case 'scope-upgrade':
      return { ...common, scopes: [...outcome.scopes] }
    case 'revalidate':
      return common
    case 'reauthenticate':
      return {
        ...common,
        purpose: outcome.purpose,
        stepUpToken: outcome.credential.reveal(),
        expiresAt: outcome.credential.expiresAt.toISOString(),
      }
  }
}

async function signedIn<N>(
  context: OAuthRouteContext<N>,
  outcome: Outcome<'login'>,
  exchange: HttpExchange<N>,
): Promise<unknown> {
  const result = await context.options.signIn(
    {
      provider: outcome.provider,
      accountId: outcome.accountId,
      provisioned: outcome.provisioned,
      providerAccountId: outcome.providerAccountId,
      identity: outcome.identity,
      returnTo: outcome.returnTo,
    },
    exchange,
  )
  context.emit({
    type: 'oauth.signed_in',
    accountId: outcome.accountId,
    provider: outcome.provider,
    provisioned: outcome.provisioned,
  })
  return result
}

function emitOutcome<N>(
  context: OAuthRouteContext<N>,
  outcome: OAuthCallbackOutcome,
  session?: LocalSession,
): void {
  const base = { accountId: outcome.accountId, provider: outcome.provider }
  switch (outcome.operation) {
    case 'link':
      context.emit({
        type: 'oauth.linked',
        ...base,
        relinked: outcome.status === 'relinked',
        ...(context.lifecycle.writesSecurityNotices ? { notified: true } : {}),
      })
      return
    case 'scope-upgrade':
      context.emit({ type: 'oauth.scopes_upgraded', ...base })
      return
    case 'revalidate':
      context.emit({ type: 'oauth.revalidated', ...base })
      return
    case 'reauthenticate':
      context.emit({ type: 'oauth.reauthenticated', ...base, purpose: outcome.purpose })
      context.emit({
        type: 'step_up.issued',
        accountId: outcome.accountId,
        purpose: outcome.purpose,
        ...(session === undefined ? {} : { sessionHandle: session.sessionHandle }),
      })
      return
    case 'login':
      return
  }
}

/**
 * `GET callback`: completes whatever round trip the transaction recorded (the binding cookie and, for
 * every operation but an unbound login, the current session must match), then answers 303 to the
 * allow-listed `return_to`, or the outcome as JSON for a client that asked for JSON. A browser
 * reauthentication gets its credential in the purpose's step-up cookie; a JSON client in the body.
 */
export function callback<N>(context: OAuthRouteContext<N>) {
  return async (exchange: HttpExchange<N>): Promise<HttpAnswer> => {
    const provider = providerOf(exchange, context.providers)
    const session = await context.options.currentSession(exchange)
    const outcome = await context.lifecycle.complete({
      provider,
      callback: new URLSearchParams(exchange.query),
      browserBinding: context.binding.read(exchange.cookieHeader),
      ...(session === undefined ? {} : { session }),
    })
    const signIn = outcome.operation === 'login' ? await signedIn(context, outcome, exchange) : undefined
    emitOutcome(context, outcome, session)
    const cookies = context.options.stepUp.cookies
    if (exchange.wantsJson || (outcome.operation === 'reauthenticate' && cookies === undefined)) {
      return jsonAnswer({ ...outcomeBody(outcome), ...(signIn === undefined ? {} : { signIn }) })
    }
    if (outcome.operation === 'reauthenticate' && cookies !== undefined) {
      const { credential } = outcome
      return seeOther(outcome.returnTo, [
        cookies.serialize(outcome.purpose, credential.reveal(), credential.expiresAt),
      ])
    }
    return seeOther(outcome.returnTo)
  }
}
