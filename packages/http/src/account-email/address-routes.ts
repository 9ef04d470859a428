import type { ChangedAddresses } from '@portcullis/core/account-email'
import type { SessionSignIn, TokenSignIn } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { type HttpAnswer, type HttpExchange, jsonAnswer } from '../exchange/exchange.js'
import { sessionBody, tokenBody } from '../local-accounts/routes.js'
import { stepUpTokenOf } from '../oauth/http.js'
import { requireLocalSession } from '../oauth/session.js'
import { ADDRESS_ROUTE_DOCS } from './address-openapi.js'
import type { AccountEmailRouteContext } from './route-context.js'

/** The step-up purpose that adding, making primary and removing an address spend (as core checks it). */
const ADDRESS_STEP_UP_PURPOSE = 'email-change'

/**
 * The signed-in account's addresses: `GET email/addresses`, `POST email/addresses` (`{ email }`, an
 * `email-change` step-up), `POST email/addresses/resend` (`{ email }`), `POST email/addresses/primary`
 * and `POST email/addresses/remove` (`{ email }`, an `email-change` step-up). Verifying an added address
 * is `POST email/verify` with the code it was mailed.
 */
export function addressRoutes(context: AccountEmailRouteContext): void {
  const { accountEmail, local, add, limit, stepUp } = context
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const signedIn = anyOf(...names)
  const sessionOf = (exchange: HttpExchange) => requireLocalSession(exchange.security)
  const steppedUp = async (exchange: HttpExchange) => ({
    session: sessionOf(exchange),
    stepUpToken: stepUpTokenOf(exchange, stepUp, ADDRESS_STEP_UP_PURPOSE),
    body: await exchange.body(limit),
    credentials: local.credentialsOf(exchange.security.evidence),
    request: exchange.requestInfo,
  })

  add('GET', '/email/addresses', { auth: signedIn, openapi: ADDRESS_ROUTE_DOCS.list }, async (exchange) => {
    const addresses = await accountEmail.listAddresses(sessionOf(exchange))
    return jsonAnswer({
      addresses: addresses.map((each) => ({
        address: each.address,
        verified: each.verified,
        primary: each.primary,
        createdAt: each.createdAt.toISOString(),
        verifiedAt: each.verifiedAt?.toISOString() ?? null,
      })),
    })
  })
  add('POST', '/email/addresses', { auth: signedIn, openapi: ADDRESS_ROUTE_DOCS.add }, async (exchange) => {
    const added = await accountEmail.addAddress(await steppedUp(exchange))
    return jsonAnswer({ address: added.address, verified: false, flow: added.flow }, 202)
  })
  add(
    'POST',
    '/email/addresses/resend',
    { auth: signedIn, openapi: ADDRESS_ROUTE_DOCS.resend },
    async (exchange) => {
      const sent = await accountEmail.resendAddressVerification({
        session: sessionOf(exchange),
        body: await exchange.body(limit),
        // An impersonation's resend names the administrator in its event.
        request: { ...exchange.requestInfo, impersonator: exchange.security.principal?.impersonator },
      })
      return jsonAnswer({ flow: sent.flow }, 202)
    },
  )
  add(
    'POST',
    '/email/addresses/primary',
    { auth: signedIn, openapi: ADDRESS_ROUTE_DOCS.primary },
    async (exchange) =>
      changed({ primary: true }, await accountEmail.makeAddressPrimary(await steppedUp(exchange))),
  )
  add(
    'POST',
    '/email/addresses/remove',
    { auth: signedIn, openapi: ADDRESS_ROUTE_DOCS.remove },
    async (exchange) =>
      changed({ removed: true }, await accountEmail.removeAddress(await steppedUp(exchange))),
  )
}

/** 200 with the address and, when the epoch moved, the caller's renewed session or tokens. */
function changed(outcome: Record<string, boolean>, done: ChangedAddresses): HttpAnswer {
  const renewed = done.session as SessionSignIn | undefined
  const tokens = done.tokens as TokenSignIn | undefined
  return jsonAnswer(
    {
      ...outcome,
      address: done.address,
      ...(renewed === undefined ? {} : sessionBody(renewed)),
      ...(tokens === undefined ? {} : { tokens: tokenBody(tokens) }),
    },
    200,
    renewed === undefined ? [] : [renewed.setCookie],
  )
}
