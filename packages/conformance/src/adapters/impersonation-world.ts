import { randomBytes } from 'node:crypto'
import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import { requiresCapability } from '@portcullis/core/authorization'
import { ImpersonationEvents, ImpersonationRefusedActs, Impersonations } from '@portcullis/core/impersonation'
import { MemorySessionStore, type SecurityEvent } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemorySecurityLog } from '@portcullis/core/security-log'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { movableClock } from './account-email-change-world.js'
import { sessionLocalAccounts } from './account-world.js'
import type { AdapterScenario } from './scenario.js'

/** The capability of the world's administrators. */
export const IMPERSONATE = 'accounts.impersonate'
export const IMPERSONATE_ADMINISTRATORS = 'accounts.impersonate_administrators'

/**
 * The impersonation world: local accounts (session profile) whose session mechanism is wrapped by
 * `Impersonations`, the account routes (password step-up), the impersonation routes, and
 * `GET`/`POST /me` (the principal, its impersonator and its capabilities), `GET /admin-only` (guarded
 * by the administrators' capability) and `POST /keys` (refused to an impersonation: `impersonations.refuse`). Grants live in `grant(username, capabilities)`, read by the
 * authorization resolver on every request: never from the request.
 */
export function impersonationWorld(options: { readonly ttlSeconds?: number } = {}) {
  const clock = movableClock()
  const recorded: SecurityEvent[] = []
  const events = new ImpersonationEvents((event) => {
    recorded.push(event)
  })
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, stepUpStore] })
  const local = sessionLocalAccounts({
    accounts,
    sessions,
    events: events.sink,
    // the cases re-enter passwords for many step-ups of one account
    rateLimit: { perAccount: { limit: 100, windowSeconds: 900 } },
    clock,
  })
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(clock()) })
  const grants = new Map<string, readonly string[]>()
  const authorizationResolver = async ({ principal }: { principal: { id: string } }) => {
    const password = await accounts.findPassword({ accountId: principal.id })
    return { capabilities: password === null ? [] : (grants.get(password.username) ?? []) }
  }
  const impersonations = new Impersonations({
    local,
    stepUp,
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
    authorizationResolver,
    events,
    clock,
    ...(options.ttlSeconds === undefined ? {} : { ttlSeconds: options.ttlSeconds }),
  })
  const mechanisms = impersonations.mechanisms(local.mechanisms)
  const me = { auth: anyOf(...(mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]])) }
  const respond = ({
    security,
  }: {
    security: {
      principal: { id: string; impersonator?: unknown } | null
      snapshot: { capabilities: readonly string[] }
    }
  }) => ({
    id: security.principal?.id ?? null,
    impersonator: security.principal?.impersonator ?? null,
    capabilities: security.snapshot.capabilities,
  })
  const scenario: AdapterScenario = {
    security: {
      mechanisms,
      authorizationResolver,
      openapi: { info: { title: 'Impersonation', version: '1' } },
    },
    routes: [
      { method: 'GET', path: '/me', options: me, respond },
      { method: 'POST', path: '/me', options: me, respond },
      {
        method: 'GET',
        path: '/admin-only',
        options: { ...me, guards: [requiresCapability(IMPERSONATE)] },
        respond,
      },
      {
        // An application's route making what would outlast an impersonation: it refuses one first.
        method: 'POST',
        path: '/keys',
        options: me,
        respond: (request) => {
          impersonations.refuse({
            principal: request.security.principal,
            act: ImpersonationRefusedActs.apiKeyIssue,
          })
          return { issued: true }
        },
      },
    ],
    local,
    accounts: { service: new AccountService({ accounts, local, stepUp }), local },
    impersonation: { impersonations, local },
    activity: { local, securityLog: new MemorySecurityLog() },
  }
  const grant = (username: string, capabilities: readonly string[]) => grants.set(username, capabilities)
  return { scenario, clock, recorded, grant, accounts }
}
