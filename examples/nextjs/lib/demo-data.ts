// The demo data: one account and one API key, from the environment, created when the server starts
// (instrumentation.ts). Nothing secret is written in the code.
import { randomUUID } from 'node:crypto'
import { ApiKeyError, type ApiKeyRecord, parseApiKey } from '@portcullis/core/api-keys'
import { ConfigurationError } from '@portcullis/core/errors'
import { normalizeUsername, validatePassword } from '@portcullis/core/local-accounts'
import { apiKeys, local } from './portcullis'
import { stores } from './stores'

/** The owner of the demo API key: an agent (a service principal), not a person. */
export const DEMO_AGENT = 'demo-agent'

let seeded: Promise<void> | undefined

/**
 * Creates the account of `DEMO_EMAIL` with `DEMO_PASSWORD`, and the API key `DEMO_API_KEY` (stored as its
 * digest), for whichever of them is set. Runs once; later calls return the same promise.
 */
export function seedDemoData(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  seeded ??= seed(env)
  return seeded
}

async function seed(env: NodeJS.ProcessEnv): Promise<void> {
  const { DEMO_EMAIL: email, DEMO_PASSWORD: password, DEMO_API_KEY: key } = env
  if (email !== undefined && password !== undefined) {
    // #region seed-account
    const outcome = await stores.accounts.createAccount({
      accountId: randomUUID(),
      username: normalizeUsername(email),
      passwordHash: await local.hasher.hash(validatePassword(password, local.passwordRules)),
      now: new Date(),
    })
    // #endregion seed-account
    // With the Postgres stores, an earlier start may have created it already.
    if (outcome.outcome !== 'created' && outcome.outcome !== 'username-taken') {
      throw new Error(`demo account: ${outcome.outcome}`)
    }
  }
  if (key !== undefined) {
    const parts = parseApiKey(key, apiKeys.prefix)
    if (parts === undefined) {
      throw new ConfigurationError('api_key.invalid_config', `DEMO_API_KEY must be an ${apiKeys.prefix}_ key`)
    }
    const { peppers } = stores
    const digest = peppers.digest(peppers.activeVersion, parts.keyId, parts.secret)
    if (digest === undefined) throw new Error('the active pepper is missing')
    await createOnce({
      keyId: parts.keyId,
      ownerId: DEMO_AGENT,
      ownerKind: 'service',
      digest,
      pepperVersion: peppers.activeVersion,
      restrictions: {},
      createdAt: new Date(),
      label: 'demo',
    })
  }
}

/** Stores the demo key, unless an earlier start (with the same database) already did. */
async function createOnce(record: ApiKeyRecord): Promise<void> {
  try {
    await stores.apiKeys.create(record)
  } catch (error) {
    if (!(error instanceof ApiKeyError && error.code === 'api_key.duplicate_key_id')) throw error
  }
}
