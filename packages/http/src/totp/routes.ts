import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import type { RecoveryCodes, TotpFactor } from '@portcullis/core/totp'
import { fieldsOf } from '../accounts/bodies.js'
import { consumeStepUp } from '../accounts/step-up.js'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import {
  authRouteTable,
  type HttpAnswer,
  type HttpExchange,
  jsonAnswer,
  type NeutralRoute,
} from '../exchange/exchange.js'
import { localPath } from '../local-accounts/routes.js'
import type { StepUpTransport } from '../oauth/options.js'
import { requireLocalSession } from '../oauth/session.js'
import { HttpProblem, type ProblemInit } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'
import type { HttpMethod } from '../routing/route-registry.js'
import { TOTP_ROUTE_DOCS } from './openapi.js'

/** The step-up purpose starting (or restarting) a TOTP enrollment consumes. */
export const TOTP_ENROLL_PURPOSE = 'totp-enroll'
/** The step-up purpose replacing the recovery codes consumes. */
export const TOTP_RECOVERY_CODES_PURPOSE = 'totp-recovery-codes'
/** The step-up purpose turning TOTP off consumes. */
export const TOTP_DISABLE_PURPOSE = 'totp-disable'

const NOT_ENROLLED: ProblemInit = Object.freeze({
  status: 409,
  code: 'totp.not_enrolled',
  detail: 'TOTP is not enabled for this account',
})

/** What every adapter's TOTP routes take besides its own `security` and `onError`. */
export interface TotpRouteTableOptions {
  /** The second factor (`TotpService` implements it; its `issuer` names the app in authenticator apps). */
  readonly totp: TotpFactor
  /** Consumes the `totp-enroll`, `totp-recovery-codes` and `totp-disable` credentials. */
  readonly stepUp: StepUpService
  /** The local sign-ins of the same accounts: its mechanisms authenticate these routes (CSRF included). */
  readonly local: LocalAccounts
  /**
   * The label authenticator apps list beside the issuer (at most 128 characters). Default: the account's
   * username, or its id when it has no password.
   */
  readonly label?: (accountId: string) => string | Promise<string>
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB; at most 1 MiB. */
  readonly maxBodyBytes?: number
}

export const TOTP_ROUTE_TABLE_OPTIONS: OptionsShape<TotpRouteTableOptions> = {
  totp: { required: true, kind: 'object' },
  stepUp: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  label: { kind: 'function' },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

const recoveryCodesBody = (codes: RecoveryCodes) => ({ recoveryCodes: [...codes.reveal()] })

/**
 * The TOTP routes under `{base}/auth/`, for a signed-in caller of the local mechanisms, as a
 * framework-neutral route table:
 *
 * | Route | Step-up | Does |
 * | --- | --- | --- |
 * | `GET totp` | - | `{ enabled, pending, recoveryCodes }` (how many are left) |
 * | `POST totp/enroll` | `totp-enroll` | a new pending secret: `{ secret, uri }` (render `uri` as a QR code) |
 * | `POST totp/confirm` | - | `{ code }`: enables TOTP; `{ recoveryCodes }`, shown once |
 * | `POST totp/recovery-codes` | `totp-recovery-codes` | a new set of ten; the old set stops working |
 * | `POST totp/disable` | `totp-disable` | turns TOTP off (204) |
 *
 * Step-up credentials come in the step-up header or the purpose's step-up cookie. Every answer is
 * `Cache-Control: no-store`; errors are problem+json with stable codes (`totp.*`, `step-up.*`).
 */
export function totpRouteTable(options: TotpRouteTableOptions, transport: StepUpTransport): NeutralRoute[] {
  const { totp, stepUp, local } = options
  const base = localPath(options.base ?? '', 'base')
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const labelOf =
    options.label ?? (async (accountId: string) => (await local.usernameOf(accountId)) ?? accountId)
  const table = authRouteTable(base)
  const add = (
    path: string,
    openapi: OperationDocumentation,
    handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
    method: HttpMethod = 'POST',
  ) => table.add(method, path, { auth, openapi }, handle)
  const sessionOf = (exchange: HttpExchange) => requireLocalSession(exchange.security)
  const contextOf = (exchange: HttpExchange, accountId: string) => ({
    accountId,
    clientAddress: local.clientAddress(exchange.requestInfo),
  })

  add(
    '/totp',
    TOTP_ROUTE_DOCS.status,
    async (exchange) => {
      const status = await totp.status(sessionOf(exchange).accountId)
      return jsonAnswer({
        enabled: status.enabled,
        pending: status.pending,
        recoveryCodes: status.recoveryCodes,
      })
    },
    'GET',
  )

  add('/totp/enroll', TOTP_ROUTE_DOCS.enroll, async (exchange) => {
    const session = sessionOf(exchange)
    await consumeStepUp(exchange, transport, stepUp, session, TOTP_ENROLL_PURPOSE)
    const start = await totp.beginEnrollment({
      accountId: session.accountId,
      label: await labelOf(session.accountId),
    })
    return jsonAnswer({ secret: start.revealSecret(), uri: start.revealUri() })
  })

  add('/totp/confirm', TOTP_ROUTE_DOCS.confirm, async (exchange) => {
    const session = sessionOf(exchange)
    const { code } = fieldsOf(await exchange.body(limit), ['code'], [])
    const codes = await totp.confirmEnrollment({ ...contextOf(exchange, session.accountId), code })
    return jsonAnswer(recoveryCodesBody(codes))
  })

  add('/totp/recovery-codes', TOTP_ROUTE_DOCS.recoveryCodes, async (exchange) => {
    const session = sessionOf(exchange)
    await consumeStepUp(exchange, transport, stepUp, session, TOTP_RECOVERY_CODES_PURPOSE)
    const codes = await totp.regenerateRecoveryCodes(contextOf(exchange, session.accountId))
    return jsonAnswer(recoveryCodesBody(codes))
  })

  add('/totp/disable', TOTP_ROUTE_DOCS.disable, async (exchange) => {
    const session = sessionOf(exchange)
    await consumeStepUp(exchange, transport, stepUp, session, TOTP_DISABLE_PURPOSE)
    if (!(await totp.disable(contextOf(exchange, session.accountId)))) throw new HttpProblem(NOT_ENROLLED)
    return { status: 204 }
  })

  return table.routes
}
