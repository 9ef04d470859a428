import type { SecurityEventSink, SecurityNoticeSource } from '@portcullis/core/local-accounts'
import { PasskeyStepUp } from '@portcullis/core/passkeys'
import type { StepUpService } from '@portcullis/core/step-up'
import { TotpSecondFactor } from '@portcullis/core/totp'
import { PasskeyService } from '@portcullis/passkeys'
import {
  type PostgresClient,
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresStepUpStore,
  PostgresTotpStore,
} from '@portcullis/postgres'
import { TotpService } from '@portcullis/totp'
import type { KeyMaterial } from '../secrets/key-material.js'

// The one place that builds the passkey and TOTP services (`@portcullis/passkeys`, `@portcullis/totp`).

/** The name authenticator apps show beside the account. */
export const TOTP_ISSUER = 'Portcullis reference'

/** Where passkeys work: WebAuthn needs a host name (never an IP address) and https, or http://localhost. */
export interface RelyingParty {
  readonly rpId: string
  readonly origins: readonly string[]
}

/**
 * The relying party of a public origin: its host over https, or `localhost` over plain http (browsers
 * treat `http://localhost` as a secure context). Undefined otherwise, `http://127.0.0.1` included: an IP
 * address cannot be an RP ID, and the pages' CSRF check accepts only the public origin, so set
 * `PORTCULLIS_PUBLIC_URL=http://localhost:PORT` to try passkeys locally.
 */
export function relyingPartyOf(publicOrigin: string): RelyingParty | undefined {
  const url = new URL(publicOrigin)
  const named = !/^[\d.]+$|^\[/.test(url.hostname)
  if ((url.protocol === 'https:' && named) || (url.protocol === 'http:' && url.hostname === 'localhost')) {
    return { rpId: url.hostname, origins: [url.origin] }
  }
  return undefined
}

export interface SecondFactorParts {
  readonly postgres: PostgresClient
  readonly keys: KeyMaterial
  readonly publicOrigin: string
  readonly stepUp: StepUpService
  readonly events: SecurityEventSink
  /** Writes the notification of each TOTP, recovery-code and passkey change in its store's transaction. */
  readonly securityNotices?: SecurityNoticeSource
}

export interface SecondFactors {
  /** Undefined when the public origin cannot host passkeys (plain http beyond loopback). */
  readonly passkeys?: { readonly service: PasskeyService; readonly stepUp: PasskeyStepUp }
  readonly relyingParty?: RelyingParty
  readonly totp: TotpService
  /** The second step of password sign-ins of accounts with TOTP (`LocalAccounts({ secondFactor })`). */
  readonly secondFactor: TotpSecondFactor
}

/**
 * Passkeys (`PasskeyService`, `PasskeyStepUp`) and TOTP (`TotpService`, `TotpSecondFactor`) over the
 * Postgres stores. Secrets come from the app's secrets: the passkey pepper, the recovery-code peppers,
 * and the protector that seals each TOTP secret (bound to its account).
 */
export function createSecondFactors(parts: SecondFactorParts): SecondFactors {
  const { postgres: client, keys } = parts
  const totp = new TotpService({
    store: new PostgresTotpStore({ client }),
    protector: keys.protector,
    rateLimits: new PostgresRateLimitStore({ client }),
    recoveryCodePeppers: keys.recoveryCodePeppers,
    issuer: TOTP_ISSUER,
    events: parts.events,
    ...(parts.securityNotices === undefined ? {} : { securityNotices: parts.securityNotices }),
  })
  const secondFactor = new TotpSecondFactor({ totp, pending: new PostgresStepUpStore({ client }) })
  const relyingParty = relyingPartyOf(parts.publicOrigin)
  if (relyingParty === undefined) return { totp, secondFactor }
  const service = new PasskeyService({
    rpId: relyingParty.rpId,
    rpName: 'Portcullis reference app',
    origins: relyingParty.origins,
    passkeys: new PostgresPasskeyStore({ client }),
    challenges: new PostgresPasskeyChallengeStore({ client }),
    pepper: keys.passkeyPepper,
    events: parts.events,
    ...(parts.securityNotices === undefined ? {} : { securityNotices: parts.securityNotices }),
  })
  return {
    passkeys: { service, stepUp: new PasskeyStepUp({ passkeys: service, stepUp: parts.stepUp }) },
    relyingParty,
    totp,
    secondFactor,
  }
}
