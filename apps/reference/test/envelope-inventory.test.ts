import { envelopesByKeyVersion } from '@portcullis/core/protection'
import { StepUpService } from '@portcullis/core/step-up'
import { PostgresEnvelopeInventory, PostgresStepUpStore } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecondFactors } from '../src/accounts/second-factors.js'
import { readSecretsFile } from '../src/secrets/secrets-file.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * TOTP secrets are sealed with the app's protector: `protector status` counts them, so
 * `protector drop-retained` never drops a key a TOTP secret still needs.
 */
let app: TestApp

const countsUnder = async (version: string) =>
  envelopesByKeyVersion(await new PostgresEnvelopeInventory({ client: app.postgres }).count()).get(version) ??
  0

describe('the envelope inventory of the app', () => {
  beforeAll(async () => {
    app = await startTestApp()
  })
  afterAll(async () => {
    await app?.close()
  })

  it('count each TOTP secret under the key that sealed it', async () => {
    const active = (await readSecretsFile(app.config.secretsFile ?? '')).protector.active.version
    const before = await countsUnder(active)
    const { totp } = createSecondFactors({
      postgres: app.postgres,
      keys: app.keys,
      publicOrigin: app.url,
      stepUp: new StepUpService({ store: new PostgresStepUpStore({ client: app.postgres }) }),
      events: () => undefined,
    })
    await totp.beginEnrollment({ accountId: 'demo-alice', label: 'alice' })
    await totp.beginEnrollment({ accountId: 'demo-bob', label: 'bob' })
    expect(await countsUnder(active)).toBe(before + 2)
    // Restarting an enrollment replaces the pending secret: still one envelope per account.
    await totp.beginEnrollment({ accountId: 'demo-bob', label: 'bob' })
    expect(await countsUnder(active)).toBe(before + 2)
  })
})
