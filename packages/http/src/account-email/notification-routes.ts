import { anyOf } from '@portcullis/core/policy'
import { type HttpExchange, jsonAnswer } from '../exchange/exchange.js'
import { requireLocalSession } from '../oauth/session.js'
import { EMAIL_CHANGE_ROUTE_DOCS } from './email-change-openapi.js'
import type { AccountEmailRouteContext } from './route-context.js'

/** `GET notifications` and `POST notifications` (`{ optOuts }`): the account's notification settings. */
export function notificationRoutes(context: AccountEmailRouteContext): void {
  const { accountEmail, local, add, limit } = context
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const signedIn = anyOf(...names)
  const accountOf = (exchange: HttpExchange) => requireLocalSession(exchange.security).accountId

  add(
    'GET',
    '/notifications',
    { auth: signedIn, openapi: EMAIL_CHANGE_ROUTE_DOCS.notifications },
    async (exchange) => jsonAnswer(await accountEmail.notificationSettings(accountOf(exchange))),
  )
  add(
    'POST',
    '/notifications',
    { auth: signedIn, openapi: EMAIL_CHANGE_ROUTE_DOCS.setNotifications },
    async (exchange) =>
      jsonAnswer(await accountEmail.setNotificationSettings(accountOf(exchange), await exchange.body(limit))),
  )
}
