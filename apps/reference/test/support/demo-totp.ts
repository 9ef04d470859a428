import { PostgresRateLimitStore, PostgresTotpStore } from '@portcullis/postgres'
import { TotpService, totpCodeAt } from '@portcullis/totp'
import { demoAccountId } from '../../src/accounts/local-accounts.js'
import type { TestApp } from './reference-app.js'

/**
 * Turns TOTP on for a demo user of `app` (over the app's own Postgres stores and secrets), confirmed with
 * the previous time step's code so the sign-in can use the current one (a code works once). Answers the
 * secret, for the codes of the sign-in's second step.
 */
export async function enrollDemoTotp(app: TestApp, username: string): Promise<string> {
  const totp = new TotpService({
    store: new PostgresTotpStore({ client: app.postgres }),
    protector: app.keys.protector,
    rateLimits: new PostgresRateLimitStore({ client: app.postgres }),
    recoveryCodePeppers: app.keys.recoveryCodePeppers,
    issuer: 'reference test',
  })
  const accountId = demoAccountId(username)
  const secret = (await totp.beginEnrollment({ accountId, label: username })).revealSecret()
  await totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, Date.now() - 30_000) })
  return secret
}
