import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import { AccountAdministration } from '@portcullis/core/administration'
import { MemoryApiKeyStore } from '@portcullis/core/api-keys'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
} from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { MemorySecurityLog } from '@portcullis/core/security-log'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { movableClock } from './account-email-change-world.js'
import { ORIGIN, scryptHasher } from './account-world.js'
import type { AdapterScenario } from './scenario.js'

/**
 * The administration world: local accounts (hybrid profile, memory stores) whose administrators hold the
 * `admin` role in the authorization snapshot (the ids in `administrators`), the account routes (password
 * step-up), the administration routes over a memory security log and API-key store, and `GET`/`POST /me`.
 */
export async function administrationWorld() {
  const clock = movableClock()
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const apiKeys = new MemoryApiKeyStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, stepUpStore, apiKeys] })
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  const local = new LocalAccounts({
    profile: 'hybrid',
    accounts,
    sessions,
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits: new MemoryRateLimitStore(),
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    clock,
  })
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(clock()) })
  const log = new MemorySecurityLog()
  const administration = new AccountAdministration({
    accounts,
    local,
    stepUp,
    log,
    apiKeys: { store: apiKeys, directory: apiKeys },
  })
  const administrators = new Set<string>()
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const me = { auth: anyOf(...names) }
  const respond = ({ security }: { security: { principal: { id: string } | null } }) => ({
    id: security.principal?.id ?? null,
  })
  const scenario: AdapterScenario = {
    security: {
      mechanisms: local.mechanisms,
      authorizationResolver: ({ principal }) =>
        administrators.has(principal.id) ? { roles: ['admin'] } : {},
      openapi: { info: { title: 'Administration', version: '1' } },
    },
    routes: [
      { method: 'GET', path: '/me', options: me, respond },
      { method: 'POST', path: '/me', options: me, respond },
    ],
    local,
    accounts: { service: new AccountService({ accounts, local, stepUp }), local },
    administration: { administration, local },
  }
  return { scenario, clock, accounts, apiKeys, log, stepUp, administrators }
}
