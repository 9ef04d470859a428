import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { linkedAccount, NOW, type OAuthAccountStoreFixture, sameTokens } from './fixture.js'
import { envelopeLeaks } from './vault-cases.js'

type Case = ConformanceCase<OAuthAccountStoreFixture>

const LEASE = 60
const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000)

async function staged(
  { store, accountStore }: Pick<OAuthAccountStoreFixture, 'store' | 'accountStore'>,
  occurredAt = NOW,
) {
  const linked = await linkedAccount(store, accountStore)
  const retry = await store.stageRevocationRetry({
    providerAccountId: linked.link.providerAccountId,
    expectedVersion: linked.reference?.version ?? 0,
    tokens: linked.tokens,
    failedTokenTypes: ['access_token', 'refresh_token'],
    occurredAt,
  })
  return { ...linked, retryId: retry?.retryId ?? '' }
}

export const retryCases: readonly Case[] = [
  conformanceCase(
    'oauth-accounts.retry.stage',
    'staging a retry at the current version encrypts the tokens into it and discards the active ones',
    async ({ store, accountStore, inspector }, check) => {
      const { link, tokens: retained, retryId } = await staged({ store, accountStore })
      check(retryId !== '', 'staging at the current version failed')
      check((await store.getTokens(link.providerAccountId)) === null, 'active tokens survived staging')
      const envelope = await inspector.readRetryEnvelope(retryId)
      check(envelope !== null, 'the inspector found no retry envelope')
      const secrets = [retained.accessToken, retained.refreshToken ?? '']
      check(
        envelope !== null && !envelopeLeaks(envelope, secrets),
        'a token is readable in the retry envelope',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.retry.stage-stale',
    'staging at a stale version changes nothing',
    async ({ store, accountStore }, check) => {
      const { link, reference, tokens: retained } = await linkedAccount(store, accountStore)
      const id = link.providerAccountId
      const swapped = await store.replaceTokens({
        providerAccountId: id,
        expectedVersion: reference?.version ?? 0,
        tokens: retained,
      })
      const retry = await store.stageRevocationRetry({
        providerAccountId: id,
        expectedVersion: reference?.version ?? 0,
        tokens: retained,
        failedTokenTypes: ['access_token'],
        occurredAt: NOW,
      })
      check(retry === null, 'a stale version staged a retry')
      check(
        (await store.getTokens(id))?.reference.version === swapped?.version,
        'stale staging touched the tokens',
      )
      const claimed = await store.claimRevocationRetries({ now: at(1), leaseSeconds: LEASE, limit: 1000 })
      check(!claimed.some((retry) => retry.providerAccountId === id), 'a stale staging left a retry behind')
    },
  ),
  conformanceCase(
    'oauth-accounts.retry.claim-complete',
    'a claimed retry carries its tokens and failed types; only its claim completes it, once',
    async ({ store, accountStore }, check) => {
      const { link, tokens: retained, retryId } = await staged({ store, accountStore })
      const claimed = (
        await store.claimRevocationRetries({ now: at(1), leaseSeconds: LEASE, limit: 1000 })
      ).find((retry) => retry.retryId === retryId)
      check(claimed !== undefined, 'the staged retry was not claimed')
      if (claimed === undefined) return
      check(claimed.providerAccountId === link.providerAccountId, 'retry names another provider account')
      check(
        claimed.failedTokenTypes.join(',') === 'refresh_token,access_token',
        'failed types not refresh-first',
      )
      check(sameTokens(claimed.tokens, retained), 'retry tokens differ from the staged ones')
      check(claimed.attempts === 1, `first claim counted ${claimed.attempts} attempts`)
      check(
        !(await store.completeRevocationRetry({ retryId, claim: `${claimed.claim}x` })),
        'a forged claim completed',
      )
      check(
        await store.completeRevocationRetry({ retryId, claim: claimed.claim }),
        'the real claim did not complete',
      )
      check(!(await store.completeRevocationRetry({ retryId, claim: claimed.claim })), 'completed twice')
      const after = await store.claimRevocationRetries({
        now: at(LEASE * 10),
        leaseSeconds: LEASE,
        limit: 1000,
      })
      check(!after.some((retry) => retry.retryId === retryId), 'a completed retry came back')
    },
  ),
  conformanceCase(
    'oauth-accounts.retry.concurrent-claims',
    'concurrent drains never claim the same retry twice',
    async ({ store, accountStore }, check) => {
      const ids = new Set<string>()
      for (let index = 0; index < 4; index += 1) ids.add((await staged({ store, accountStore })).retryId)
      const batches = await Promise.all(
        Array.from({ length: 4 }, () =>
          store.claimRevocationRetries({ now: at(1), leaseSeconds: LEASE, limit: 1000 }),
        ),
      )
      const mine = batches.flat().filter((retry) => ids.has(retry.retryId))
      check(mine.length === ids.size, `${mine.length} claims for ${ids.size} retries`)
      check(new Set(mine.map((retry) => retry.retryId)).size === ids.size, 'a retry was claimed twice')
    },
  ),
  conformanceCase(
    'oauth-accounts.retry.lease',
    'a claim hides the retry until its lease ends; a re-claim supersedes the old claim',
    async ({ store, accountStore }, check) => {
      const { retryId } = await staged({ store, accountStore })
      const find = async (seconds: number) =>
        (await store.claimRevocationRetries({ now: at(seconds), leaseSeconds: LEASE, limit: 1000 })).find(
          (retry) => retry.retryId === retryId,
        )
      const first = await find(1)
      check(first !== undefined, 'not claimed')
      check((await find(LEASE)) === undefined, 'claimable again before the lease ended')
      const second = await find(1 + LEASE)
      check(second !== undefined && second.attempts === 2, 'not claimable again when the lease ended')
      check(second?.claim !== first?.claim, 're-claim reused the old claim')
      check(
        !(await store.completeRevocationRetry({ retryId, claim: first?.claim ?? '' })),
        'a superseded claim completed',
      )
      check(
        await store.completeRevocationRetry({ retryId, claim: second?.claim ?? '' }),
        'the current claim failed',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.retry.oldest-first',
    'claims take the oldest retries first, up to the limit',
    async ({ store, accountStore }, check) => {
      const mine: string[] = []
      for (const offset of [-30, -20, -10])
        mine.push((await staged({ store, accountStore }, at(offset))).retryId)
      // Leave other retries of a shared store alone: look only at this case's three.
      const seen: string[] = []
      for (let round = 0; round < 200 && seen.length < 3; round += 1) {
        const batch = await store.claimRevocationRetries({ now: at(1), leaseSeconds: LEASE, limit: 1 })
        if (batch.length === 0) break
        for (const retry of batch) if (mine.includes(retry.retryId)) seen.push(retry.retryId)
      }
      check(seen.join(',') === mine.join(','), 'retries were not claimed oldest first, one per limit')
    },
  ),
]
