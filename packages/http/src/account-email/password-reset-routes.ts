import type { ResetCompleted } from '@portcullis/core/account-email'
import type { SessionSignIn, TokenSignIn } from '@portcullis/core/local-accounts'
import { anonymous } from '@portcullis/core/policy'
import { type HttpAnswer, type HttpExchange, jsonAnswer, problemAnswer } from '../exchange/exchange.js'
import { localCsrf } from '../local-accounts/csrf.js'
import { sessionBody, tokenBody } from '../local-accounts/routes.js'
import { browserBindingCookie, browserBindingFrom } from '../passkeys/binding-cookie.js'
import { ACCOUNT_EMAIL_ROUTE_DOCS } from './openapi.js'
import type { AccountEmailRouteContext } from './route-context.js'

/**
 * `POST password/forgot`, `POST password/reset`, `POST password/reset/second-factor` (TOTP) and
 * `POST password/reset/passkey` (the assertion of an account with a passkey).
 */
export function passwordResetRoutes(context: AccountEmailRouteContext): void {
  const { accountEmail, local, add, limit } = context
  const csrf = localCsrf(local)
  const sessions = local.sessionMechanismName !== undefined
  const signsIn = accountEmail.parts.reset.signIn !== 'never'
  const resetOptions = (exchange: HttpExchange) => ({
    transport: sessions ? ('session' as const) : ('tokens' as const),
    replacesSessionId: local.csrf.sessionIdFrom(exchange.cookieHeader),
    request: exchange.requestInfo,
    browserBinding: browserBindingFrom(exchange.cookieHeader),
  })
  // A reset that may sign in creates cookie state: CSRF-checked exactly like a sign-in.
  const refused = (exchange: HttpExchange) =>
    sessions && signsIn && !csrf.decide(exchange, local.csrf.anchorFrom(exchange.cookieHeader)).ok
  const done = (result: ResetCompleted): HttpAnswer => {
    const signIn = result.signIn
    if (signIn === undefined) return jsonAnswer({ reset: true })
    if (signIn.transport === 'session') {
      const session = signIn as SessionSignIn
      return jsonAnswer({ reset: true, ...sessionBody(session) }, 200, [session.setCookie])
    }
    return jsonAnswer({ reset: true, tokens: tokenBody(signIn as TokenSignIn) })
  }

  add(
    'POST',
    '/password/forgot',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.forgot },
    async (exchange) =>
      jsonAnswer(
        await accountEmail.requestPasswordReset(await exchange.body(limit), exchange.requestInfo),
        202,
      ),
  )
  add(
    'POST',
    '/password/reset',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.reset },
    async (exchange) => {
      if (refused(exchange)) return problemAnswer(csrf.refused)
      const result = await accountEmail.resetPassword(await exchange.body(limit), resetOptions(exchange))
      if (result.outcome === 'reset') return done(result)
      if (result.outcome === 'passkey') {
        const ceremony = result.ceremony
        const ttl = accountEmail.parts.passkeys?.challengeTtlSeconds ?? 300
        const cookies = ceremony.bindingReused
          ? []
          : [browserBindingCookie(ceremony.revealBrowserBinding(), ttl)]
        const pending = {
          passkeyRequired: true,
          resetToken: result.revealResetToken(),
          options: ceremony.options,
          expiresAt: ceremony.expiresAt.toISOString(),
        }
        return jsonAnswer(pending, 202, cookies)
      }
      return jsonAnswer(
        {
          secondFactorRequired: true,
          pendingToken: result.pending.reveal(),
          resetToken: result.revealResetToken(),
          methods: result.pending.methods,
          expiresAt: result.pending.expiresAt.toISOString(),
        },
        202,
      )
    },
  )
  add(
    'POST',
    '/password/reset/second-factor',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.resetSecondFactor },
    async (exchange) => {
      if (refused(exchange)) return problemAnswer(csrf.refused)
      return done(
        await accountEmail.completeResetSecondFactor(await exchange.body(limit), resetOptions(exchange)),
      )
    },
  )
  add(
    'POST',
    '/password/reset/passkey',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.resetPasskey },
    async (exchange) => {
      if (refused(exchange)) return problemAnswer(csrf.refused)
      return done(await accountEmail.completeResetPasskey(await exchange.body(limit), resetOptions(exchange)))
    },
  )
}
