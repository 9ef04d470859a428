import { AccountEmail } from '@portcullis/core/account-email'
import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import { authRouteTable, type HttpAnswer, type NeutralRoute } from '../exchange/exchange.js'
import { localProblem } from '../local-accounts/problem.js'
import { localPath } from '../local-accounts/routes.js'
import type { StepUpTransport } from '../oauth/options.js'
import { HttpProblem } from '../problem/problem.js'
import { addressRoutes } from './address-routes.js'
import { emailChangeRoutes } from './email-change-routes.js'
import { notificationRoutes } from './notification-routes.js'
import { passwordResetRoutes } from './password-reset-routes.js'
import type { AccountEmailRouteContext, AccountEmailRouteTableOptions } from './route-context.js'
import { signInCodeRoutes } from './sign-in-code-routes.js'
import { signUpRoutes } from './sign-up-routes.js'

export type { AccountEmailRouteContext, AccountEmailRouteTableOptions } from './route-context.js'

export const ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS: OptionsShape<AccountEmailRouteTableOptions> = {
  accountEmail: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof AccountEmail ? undefined : 'must be an AccountEmail'),
  },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  stepUp: { kind: 'object' },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

/** What these routes send on every answer, a problem included (OWASP: no code in a `Referer`). */
export const ACCOUNT_EMAIL_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
})

function withHeaders(answer: HttpAnswer): HttpAnswer {
  return { ...answer, headers: { ...answer.headers, ...ACCOUNT_EMAIL_HEADERS } }
}

/**
 * The account email routes under `{base}/auth/`, as a framework-neutral route table:
 *
 * | Route | Does |
 * | --- | --- |
 * | `POST email/sign-up` | `{ email, password }`: 202 `{ flow }`, the same for a new and a known address |
 * | `POST email/verify` | `{ flow, code }`: verifies the address |
 * | `POST email/verify/resend` | `{ flow }`: a new code, 202 `{ flow }` |
 * | `POST password/forgot` | `{ email }`: 202 `{ flow }`, the same for every address |
 * | `POST password/reset` | `{ flow, code, password }`: 200, or 202 when the TOTP code is next |
 * | `POST password/reset/second-factor` | `{ resetToken, pendingToken, code }`: 200 |
 *
 * plus the email change, sign-in by code, notification and address routes (`GET email/addresses`,
 * `POST email/addresses`, `email/addresses/resend`, `email/addresses/primary`,
 * `email/addresses/remove`). Every answer is
 * `Cache-Control: no-store` and `Referrer-Policy: no-referrer`; bodies are JSON or forms; errors are
 * problem+json with stable codes (`account_email.*`). Unsafe requests that carry the session cookie
 * pass the local-account CSRF check.
 */
export function accountEmailRouteTable(
  options: AccountEmailRouteTableOptions,
  stepUp: StepUpTransport,
): NeutralRoute[] {
  const base = localPath(options.base ?? '', 'base')
  const table = authRouteTable(base)
  const context: AccountEmailRouteContext = {
    accountEmail: options.accountEmail,
    local: options.local,
    options,
    stepUp,
    limit: options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES,
    add(method, path, routeOptions, handle) {
      table.add(method, path, routeOptions, async (exchange) => {
        try {
          return withHeaders(await handle(exchange))
        } catch (error) {
          const problem = localProblem(error)
          throw new HttpProblem({ ...problem, headers: { ...problem.headers, ...ACCOUNT_EMAIL_HEADERS } })
        }
      })
    },
  }
  // Sign-up, verification and password reset.
  signUpRoutes(context)
  passwordResetRoutes(context)
  // Email change and undo, sign-in by email code, notification settings: their route files add here.
  emailChangeRoutes(context)
  signInCodeRoutes(context)
  notificationRoutes(context)
  // The signed-in account's addresses.
  addressRoutes(context)
  return table.routes
}
