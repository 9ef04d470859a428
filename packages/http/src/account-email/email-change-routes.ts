import type { SessionSignIn, TokenSignIn } from '@portcullis/core/local-accounts'
import { anonymous, anyOf } from '@portcullis/core/policy'
import { type HttpExchange, jsonAnswer } from '../exchange/exchange.js'
import { sessionBody, tokenBody } from '../local-accounts/routes.js'
import { stepUpTokenOf } from '../oauth/http.js'
import { requireLocalSession } from '../oauth/session.js'
import { EMAIL_CHANGE_ROUTE_DOCS } from './email-change-openapi.js'
import type { AccountEmailRouteContext } from './route-context.js'

/** The step-up purpose an email change consumes (as `AccountEmail` checks it). */
const EMAIL_CHANGE_STEP_UP_PURPOSE = 'email-change'

/**
 * `POST email/change` (signed in, an `email-change` step-up), `POST email/change/confirm` (signed in,
 * the same account) and `POST email/change/undo` (the old address's link: no session).
 */
export function emailChangeRoutes(context: AccountEmailRouteContext): void {
  const { accountEmail, local, add, limit, stepUp } = context
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const signedIn = anyOf(...names)
  const sessionOf = (exchange: HttpExchange) => requireLocalSession(exchange.security)

  add(
    'POST',
    '/email/change',
    { auth: signedIn, openapi: EMAIL_CHANGE_ROUTE_DOCS.request },
    async (exchange) => {
      const session = sessionOf(exchange)
      const requested = await accountEmail.requestEmailChange({
        session,
        stepUpToken: stepUpTokenOf(exchange, stepUp, EMAIL_CHANGE_STEP_UP_PURPOSE),
        body: await exchange.body(limit),
        request: exchange.requestInfo,
      })
      return jsonAnswer({ flow: requested.flow, expiresAt: requested.expiresAt.toISOString() }, 202)
    },
  )

  add(
    'POST',
    '/email/change/confirm',
    { auth: signedIn, openapi: EMAIL_CHANGE_ROUTE_DOCS.confirm },
    async (exchange) => {
      const session = sessionOf(exchange)
      const done = await accountEmail.completeEmailChange({
        session,
        body: await exchange.body(limit),
        credentials: local.credentialsOf(exchange.security.evidence),
        request: exchange.requestInfo,
      })
      const renewed = done.session as SessionSignIn | undefined
      const tokens = done.tokens as TokenSignIn | undefined
      return jsonAnswer(
        {
          address: done.address,
          ...(renewed === undefined ? {} : sessionBody(renewed)),
          ...(tokens === undefined ? {} : { tokens: tokenBody(tokens) }),
        },
        200,
        renewed === undefined ? [] : [renewed.setCookie],
      )
    },
  )

  add(
    'POST',
    '/email/change/undo',
    { auth: anonymous(), openapi: EMAIL_CHANGE_ROUTE_DOCS.undo },
    async (exchange) => {
      const undone = await accountEmail.undoEmailChange(await exchange.body(limit), exchange.requestInfo)
      return jsonAnswer({ undone: true, address: undone.address })
    },
  )
}
