import type { AccountEmail } from '@portcullis/core/account-email'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { StepUpService } from '@portcullis/core/step-up'
import type { HttpAnswer, HttpExchange } from '../exchange/exchange.js'
import type { StepUpTransport } from '../oauth/options.js'
import type { RouteOptions } from '../routing/route-options.js'
import type { HttpMethod } from '../routing/route-registry.js'

// The options of the account email route table and what each flow's route file receives, apart from
// the table itself so the route files and the table do not import each other.

/** What every adapter's account email routes take besides its own `security` and `onError`. */
export interface AccountEmailRouteTableOptions {
  /** The flows (`new AccountEmail({ accounts, local, codes, outbox, ... })`). */
  readonly accountEmail: AccountEmail
  /** The local sign-ins of the same accounts: CSRF, sessions, and the routes that need a signed-in caller. */
  readonly local: LocalAccounts
  /** Consumes the step-up credentials of the flows that need one (email change). */
  readonly stepUp?: StepUpService
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB; at most 1 MiB. */
  readonly maxBodyBytes?: number
}

/** What each flow's route file receives to add its routes. */
export interface AccountEmailRouteContext {
  readonly accountEmail: AccountEmail
  readonly local: LocalAccounts
  readonly options: AccountEmailRouteTableOptions
  readonly stepUp: StepUpTransport
  /** Largest accepted body. */
  readonly limit: number
  /** Adds a route under `{base}/auth`: its answers and its problems carry `ACCOUNT_EMAIL_HEADERS`. */
  add(
    method: HttpMethod,
    path: string,
    options: RouteOptions,
    handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
  ): void
}
