// Periodic jobs for the Postgres stores. Run them on every instance: concurrent drains lease different
// retries (FOR UPDATE SKIP LOCKED), and purging expired step-up credentials is idempotent.
import { accounts } from '@portcullis/core/oauth'
import { PostgresStepUpStore } from '@portcullis/postgres'
import { database, googleAccounts } from './wiring.js'

declare const googleTokenEndpoint: accounts.TokenEndpointClient

const stepUpStore = new PostgresStepUpStore({ client: database })

async function maintain(): Promise<void> {
  const drained = await accounts.drainRevocationRetries({
    store: googleAccounts,
    tokenEndpoint: googleTokenEndpoint,
    limit: 50,
    // Longer than a drain run takes: a retry claimed by a stalled instance comes back after the lease.
    leaseSeconds: 300,
  })
  if (drained.failed > 0) console.warn('revocations still failing upstream', drained)
  const purged = await stepUpStore.purgeExpired(new Date())
  if (purged > 0) console.info(`purged ${purged} expired step-up credentials`)
}

const timer = setInterval(() => {
  maintain().catch((error: unknown) => console.error('store maintenance failed', error))
}, 60_000)
timer.unref()
