import { randomBytes } from 'node:crypto'
import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import {
  AuthorizationSnapshot,
  requiresStepUp,
  type StepUpVerificationRequest,
  stepUpVerifierFor,
} from '@portcullis/core/authorization'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
} from '@portcullis/core/local-accounts'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore, PasskeyStepUp } from '@portcullis/core/passkeys'
import { anyOf } from '@portcullis/core/policy'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { MemoryTotpStore, TotpSecondFactor } from '@portcullis/core/totp'
import { localSessionOf } from '@portcullis/http'
import { PasskeyService } from '@portcullis/passkeys'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { TOTP_PERIOD_SECONDS, TotpService } from '@portcullis/totp'
import { ORIGIN, scryptHasher } from './account-world.js'
import type { AdapterScenario } from './scenario.js'

/** The purpose `POST /guarded` consumes (any step-up, password or passkey, earns it). */
export const GUARDED_PURPOSE = 'delete-account'

/** A clock the TOTP service reads: starts at a step boundary, moves only when a case says so. */
export interface StepClock {
  now(): number
  /** Moves to the next 30-second step (a code of the previous step is then a different code). */
  nextStep(): void
}

function stepClock(): StepClock {
  const period = TOTP_PERIOD_SECONDS * 1000
  let now = Math.floor(Date.now() / period) * period + 1000
  return {
    now: () => now,
    nextStep: () => {
      now += period
    },
  }
}

/**
 * The second-factor world: local accounts (hybrid profile, memory stores) with the TOTP second factor,
 * passkeys (relying party `app.example`), one step-up service for password and passkey step-ups, the
 * account, passkey and TOTP routes, `GET`/`POST /me` for any local mechanism and `POST /guarded`, which
 * requires a one-use `delete-account` step-up.
 */
export async function factorWorld() {
  const clock = stepClock()
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const passkeyStore = new MemoryPasskeyStore()
  const totpStore = new MemoryTotpStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, stepUpStore, passkeyStore, totpStore] })
  const rateLimits = new MemoryRateLimitStore()
  const stepUp = new StepUpService({ store: stepUpStore })
  const totp = new TotpService({
    store: totpStore,
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
    rateLimits,
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Conformance',
    clock: clock.now,
  })
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  const local = new LocalAccounts({
    profile: 'hybrid',
    accounts,
    sessions,
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits,
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    secondFactor: new TotpSecondFactor({ totp, pending: new MemoryStepUpStore() }),
  })
  const passkeys = new PasskeyService({
    rpId: 'app.example',
    rpName: 'Conformance',
    origins: [ORIGIN],
    passkeys: passkeyStore,
    challenges: new MemoryPasskeyChallengeStore(),
    pepper: randomBytes(32),
  })
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const signedIn = anyOf(...names)
  const respond = ({ security }: { security: { principal: { id: string } | null } }) => ({
    id: security.principal?.id ?? null,
  })
  const bind = (request: StepUpVerificationRequest) => {
    const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
    return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
  }
  const scenario: AdapterScenario = {
    security: {
      mechanisms: local.mechanisms,
      stepUp: { verifier: stepUpVerifierFor(stepUp, bind) },
      openapi: { info: { title: 'Second factors', version: '1' } },
    },
    routes: [
      { method: 'GET', path: '/me', options: { auth: signedIn }, respond },
      { method: 'POST', path: '/me', options: { auth: signedIn }, respond },
      {
        method: 'POST',
        path: '/guarded',
        options: { auth: signedIn, guards: [requiresStepUp(GUARDED_PURPOSE)] },
        respond,
      },
    ],
    local,
    accounts: { service: new AccountService({ accounts, local, stepUp }), local },
    passkeys: { passkeys, passkeyStepUp: new PasskeyStepUp({ passkeys, stepUp }), stepUp, local },
    totp: { totp, stepUp, local },
  }
  return { scenario, clock, passkeyStore, accounts }
}
