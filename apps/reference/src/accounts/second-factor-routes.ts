import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { StepUpService } from '@portcullis/core/step-up'
import { passkeyRoutes, type SecureRouter, type Security, totpRoutes } from '@portcullis/express'
import type { SecondFactors } from './second-factors.js'

/**
 * The JSON routes of passkeys (register, sign in, rename, remove, step-up; only when the public origin
 * can host them) and TOTP (enroll, confirm, recovery codes, disable); the pages' script calls the
 * passkey ones.
 */
export function secondFactorRoutes(input: {
  readonly factors: SecondFactors
  readonly stepUp: StepUpService
  readonly local: LocalAccounts
  readonly security: Security
}): readonly SecureRouter[] {
  const { factors, stepUp, local, security } = input
  const passkeys = factors.passkeys
  return [
    ...(passkeys === undefined
      ? []
      : [
          passkeyRoutes({
            passkeys: passkeys.service,
            passkeyStepUp: passkeys.stepUp,
            stepUp,
            local,
            security,
          }),
        ]),
    totpRoutes({ totp: factors.totp, stepUp, local, security }),
  ]
}
