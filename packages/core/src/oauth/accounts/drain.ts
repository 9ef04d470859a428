import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { requireBoundedInteger } from './input.js'
import type { OAuthRevocationRetries } from './port.js'
import { requireNow } from './request-input.js'
import { revokeUpstream } from './service.js'
import type { TokenEndpointClient } from './token-endpoint.js'

export interface DrainRevocationRetriesOptions {
  readonly store: OAuthRevocationRetries
  readonly tokenEndpoint: TokenEndpointClient
  /** Default `() => new Date()`. */
  readonly clock?: () => Date
  /** Retries claimed per run, 1..1000. Default 50. */
  readonly limit?: number
  /** How long a claimed retry stays invisible to other drains, in seconds. Default 300. */
  readonly leaseSeconds?: number
}

const DRAIN_OPTIONS: OptionsShape<DrainRevocationRetriesOptions> = {
  store: { required: true, kind: 'object', code: 'oauth.account.drain_options' },
  tokenEndpoint: { required: true, kind: 'object', code: 'oauth.account.drain_options' },
  clock: { kind: 'function' },
  limit: { kind: 'number' },
  leaseSeconds: { kind: 'number' },
}

export interface DrainReport {
  /** Retries claimed by this run. */
  readonly claimed: number
  /** Revoked upstream and deleted. */
  readonly completed: number
  /** Still failing upstream; they become claimable again when their lease ends. */
  readonly failed: number
  /** Revoked, but the claim had already passed to another drain (lease too short). */
  readonly superseded: number
}

/**
 * Works off staged revocation retries once: claims a batch, revokes the failed token types (refresh
 * token first) and completes each retry whose revocations all succeeded. Run it from a timer or job;
 * several drains may run at once, the claim lease keeps them off each other's retries.
 */
export async function drainRevocationRetries(options: DrainRevocationRetriesOptions): Promise<DrainReport> {
  readOptions(options, 'drainRevocationRetries', DRAIN_OPTIONS)
  if (
    typeof options.store.claimRevocationRetries !== 'function' ||
    typeof options.tokenEndpoint?.revoke !== 'function'
  ) {
    throw new ConfigurationError(
      'oauth.account.drain_options',
      'drainRevocationRetries needs a store and a tokenEndpoint',
    )
  }
  const limit = requireBoundedInteger(options.limit ?? 50, 'limit', 1, 1000)
  const leaseSeconds = requireBoundedInteger(options.leaseSeconds ?? 300, 'leaseSeconds', 1, 86_400)
  const now = requireNow((options.clock ?? (() => new Date()))(), 'clock()')
  const retries = await options.store.claimRevocationRetries({ now, leaseSeconds, limit })
  let completed = 0
  let failed = 0
  let superseded = 0
  for (const retry of retries) {
    const stillFailing = await revokeUpstream(options.tokenEndpoint, retry.tokens, retry.failedTokenTypes)
    if (stillFailing.length > 0) {
      failed += 1
      continue
    }
    if (await options.store.completeRevocationRetry({ retryId: retry.retryId, claim: retry.claim }))
      completed += 1
    else superseded += 1
  }
  return { claimed: retries.length, completed, failed, superseded }
}
