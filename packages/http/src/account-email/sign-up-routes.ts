import { anonymous } from '@portcullis/core/policy'
import { jsonAnswer } from '../exchange/exchange.js'
import { ACCOUNT_EMAIL_ROUTE_DOCS } from './openapi.js'
import type { AccountEmailRouteContext } from './route-context.js'

/** `POST email/sign-up`, `POST email/verify`, `POST email/verify/resend`. */
export function signUpRoutes(context: AccountEmailRouteContext): void {
  const { accountEmail, add, limit } = context
  add(
    'POST',
    '/email/sign-up',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.signUp },
    async (exchange) =>
      jsonAnswer(await accountEmail.signUp(await exchange.body(limit), exchange.requestInfo), 202),
  )
  add(
    'POST',
    '/email/verify',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.verify },
    async (exchange) => {
      await accountEmail.verifyEmail(await exchange.body(limit), exchange.requestInfo)
      return jsonAnswer({ verified: true })
    },
  )
  add(
    'POST',
    '/email/verify/resend',
    { auth: anonymous(), openapi: ACCOUNT_EMAIL_ROUTE_DOCS.resend },
    async (exchange) =>
      jsonAnswer(
        await accountEmail.resendVerification(await exchange.body(limit), exchange.requestInfo),
        202,
      ),
  )
}
