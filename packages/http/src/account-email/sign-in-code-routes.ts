import { PendingSecondFactor, type SessionSignIn, type TokenSignIn } from '@portcullis/core/local-accounts'
import { anonymous } from '@portcullis/core/policy'
import { jsonAnswer, problemAnswer } from '../exchange/exchange.js'
import { localCsrf } from '../local-accounts/csrf.js'
import { sessionBody, tokenBody } from '../local-accounts/routes.js'
import { EMAIL_CHANGE_ROUTE_DOCS } from './email-change-openapi.js'
import type { AccountEmailRouteContext } from './route-context.js'

/**
 * `POST sign-in/code` (`{ email }`: 202 `{ flow }` for every address) and `POST sign-in/code/verify`
 * (`{ flow, code }`: signed in, or 202 when the second factor is next), only when the application
 * turned sign-in by email code on.
 */
export function signInCodeRoutes(context: AccountEmailRouteContext): void {
  const { accountEmail, local, add, limit } = context
  if (!accountEmail.signInCodeEnabled) return
  const csrf = localCsrf(local)
  const sessions = local.sessionMechanismName !== undefined

  add(
    'POST',
    '/sign-in/code',
    { auth: anonymous(), openapi: EMAIL_CHANGE_ROUTE_DOCS.signInCode },
    async (exchange) => {
      const requested = await accountEmail.requestSignInCode(await exchange.body(limit), exchange.requestInfo)
      return jsonAnswer({ flow: requested.flow, expiresAt: requested.expiresAt.toISOString() }, 202)
    },
  )

  add(
    'POST',
    '/sign-in/code/verify',
    { auth: anonymous(), openapi: EMAIL_CHANGE_ROUTE_DOCS.signInCodeVerify },
    async (exchange) => {
      const cookies = exchange.cookieHeader
      // Signing in creates cookie state: CSRF-checked exactly like a password sign-in.
      if (sessions && !csrf.decide(exchange, local.csrf.anchorFrom(cookies)).ok) {
        return problemAnswer(csrf.refused)
      }
      const signIn = await accountEmail.signInWithCode(await exchange.body(limit), {
        transport: sessions ? 'session' : 'tokens',
        replacesSessionId: local.csrf.sessionIdFrom(cookies),
        request: exchange.requestInfo,
      })
      if (signIn instanceof PendingSecondFactor) {
        return jsonAnswer(
          {
            secondFactorRequired: true,
            pendingToken: signIn.reveal(),
            methods: signIn.methods,
            expiresAt: signIn.expiresAt.toISOString(),
          },
          202,
        )
      }
      if (signIn.transport === 'session') {
        const session = signIn as SessionSignIn
        return jsonAnswer(sessionBody(session), 200, [session.setCookie])
      }
      return jsonAnswer({ tokens: tokenBody(signIn as TokenSignIn) })
    },
  )
}
