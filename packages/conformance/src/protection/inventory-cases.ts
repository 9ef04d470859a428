import { randomBytes, randomUUID } from 'node:crypto'
import { generateFlowId } from '@portcullis/core/codes'
import { sealOutboxMessage } from '@portcullis/core/mail'
import { accounts } from '@portcullis/core/oauth'
import {
  envelopesByKeyVersion,
  envelopesUnder,
  serializeProtectedEnvelope,
  unreadableEnvelopes,
} from '@portcullis/core/protection'
import { stagedRetry, vaultEntry } from '../oauth/reencryption-fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  byHolding,
  type InventoryContext,
  pendingTotp,
  resealTotp,
  START,
  sameCounts,
  TRANSACTION_LIFETIME_MS,
  transactionAt,
} from './inventory-fixture.js'

type Case = ConformanceCase<InventoryContext>

const after = (ms: number) => new Date(START.getTime() + ms)
const show = (counts: object) => JSON.stringify(counts)

/** One of everything, sealed under the active key: vault tokens, a retry, two transactions, a TOTP secret. */
async function sealEverything({ fixture, keys }: InventoryContext) {
  const kept = await vaultEntry(fixture.oauthAccounts)
  const retry = await stagedRetry(fixture.oauthAccounts)
  await fixture.oauthTransactions.create(transactionAt(START, true))
  await fixture.oauthTransactions.create(transactionAt(START, false))
  await pendingTotp(fixture.totp, keys, `account-${randomUUID()}`)
  return { kept, retry }
}

const CODE_LIFETIME_MS = 7 * 86_400_000
const PAYLOAD_AAD = new TextEncoder().encode('conformance.envelope-inventory.code-payload')

/** A sealed message waiting in the outbox and a one-time code with sealed flow data (an undo link's). */
async function sealMailAndCode({ fixture, keys }: InventoryContext) {
  const entry = await sealOutboxMessage(
    keys,
    {
      kind: 'security-notification',
      to: { address: 'ada@example.com' },
      locale: 'en',
      change: { type: 'password-changed' },
      occurredAt: START,
    },
    { now: START, accountId: null },
  )
  await fixture.mailOutbox.enqueue([entry])
  const payload = serializeProtectedEnvelope(await keys.protect(randomBytes(24), PAYLOAD_AAD))
  await fixture.oneTimeCodes.issue({
    code: {
      id: generateFlowId(),
      purpose: 'email-change-undo',
      accountId: null,
      address: 'ada@example.com',
      digest: randomBytes(32).toString('base64url'),
      keyVersion: 1,
      maxAttempts: 5,
      createdAt: START,
      expiresAt: after(CODE_LIFETIME_MS),
      payload,
    },
  })
  return entry
}

export const inventoryCases: readonly Case[] = [
  conformanceCase(
    'envelope-inventory.counts-every-holding',
    'every envelope the stores sealed is counted once, under its key version and holding: vault tokens, revocation retries, transaction verifiers and nonces, TOTP secrets',
    async (context, check) => {
      const { fixture, keys, setNow } = context
      setNow(after(1000))
      const empty = await fixture.inventory.count()
      check(
        envelopesByKeyVersion(empty).size === 0,
        `an empty storage counts ${show([...envelopesByKeyVersion(empty)])}`,
      )
      await sealEverything(context)
      const report = await fixture.inventory.count()
      const expected = {
        'oauth-token-vault': 1,
        'oauth-revocation-retry': 1,
        'oauth-transaction': 3,
        'totp-secret': 1,
      }
      const old = byHolding(report, keys.versionOf('old'))
      check(sameCounts(old, expected), `counted ${show(old)}, expected ${show(expected)}`)
      check(envelopesByKeyVersion(report).size === 1, 'envelopes counted under a key that sealed none')
      check(unreadableEnvelopes(report) === 0, 'well-formed envelopes counted as unreadable')
      check(report.countedAt.getTime() === after(1000).getTime(), 'countedAt is not the clock time')
      check(
        report.locations.every(
          (location) => typeof location.method === 'string' && location.method.length > 0,
        ),
        'a location does not say how it was counted',
      )
    },
  ),

  conformanceCase(
    'envelope-inventory.expired-transactions-skipped',
    'an OAuth transaction is counted while it can be consumed and not from its expiry on; nothing else expires',
    async (context, check) => {
      const { fixture, keys, setNow } = context
      await sealEverything(context)
      const old = keys.versionOf('old')
      setNow(after(TRANSACTION_LIFETIME_MS - 1000))
      const live = byHolding(await fixture.inventory.count(), old)
      check(live['oauth-transaction'] === 3, `a second before expiry: ${show(live)}`)
      setNow(after(TRANSACTION_LIFETIME_MS))
      const expired = byHolding(await fixture.inventory.count(), old)
      check(
        expired['oauth-transaction'] === undefined,
        `at expiry the transactions still count: ${show(expired)}`,
      )
      check(
        sameCounts(expired, { 'oauth-token-vault': 1, 'oauth-revocation-retry': 1, 'totp-secret': 1 }),
        `vault, retry or TOTP counts changed with time: ${show(expired)}`,
      )
    },
  ),

  conformanceCase(
    'envelope-inventory.completed-and-discarded',
    'a completed revocation retry and discarded vault tokens are no longer counted',
    async (context, check) => {
      const { fixture, keys, setNow } = context
      setNow(after(1000))
      const { kept } = await sealEverything(context)
      const store = fixture.oauthAccounts
      const [claimed] = await store.claimRevocationRetries({ now: after(1000), leaseSeconds: 60, limit: 10 })
      check(claimed !== undefined, 'the staged retry could not be claimed')
      if (claimed !== undefined) {
        check(
          await store.completeRevocationRetry({ retryId: claimed.retryId, claim: claimed.claim }),
          'the retry could not be completed',
        )
      }
      check(
        await store.discardTokens({ providerAccountId: kept.providerAccountId }),
        'the vault tokens could not be discarded',
      )
      const counts = byHolding(await fixture.inventory.count(), keys.versionOf('old'))
      check(
        sameCounts(counts, { 'oauth-transaction': 3, 'totp-secret': 1 }),
        `after completing the retry and discarding the tokens: ${show(counts)}`,
      )
    },
  ),

  conformanceCase(
    'envelope-inventory.rotation-drain',
    'after a rotation the old key counts every envelope until the vault and TOTP secrets are re-sealed, the transactions expire and the retries complete; then none',
    async (context, check) => {
      const { fixture, keys, setNow } = context
      setNow(after(1000))
      await sealEverything(context)
      keys.use('new', 'old')
      const old = keys.versionOf('old')
      const fresh = keys.versionOf('new')
      await fixture.oauthTransactions.create(transactionAt(after(5 * 60_000), true))
      const rotated = await fixture.inventory.count()
      check(
        byHolding(rotated, fresh)['oauth-transaction'] === 2,
        'a transaction started after the rotation is not under the new key',
      )
      const stillOld = new Set(envelopesUnder(rotated, old).map((where) => where.holding))
      check(
        stillOld.size === 4,
        `the old key is not still in use in all four holdings: ${show([...stillOld])}`,
      )
      const report = await accounts.reencryptOAuthVault({ stores: [fixture.oauthAccounts], protector: keys })
      check(
        report.resealed === 2 && report.unreadable.length === 0,
        `vault re-encryption resealed ${report.resealed}`,
      )
      check((await resealTotp(fixture.totp, keys)) === 1, 'the TOTP secret was not re-sealed')
      const resealed = byHolding(await fixture.inventory.count(), old)
      check(
        sameCounts(resealed, { 'oauth-transaction': 3 }),
        `after re-sealing, the old key still seals ${show(resealed)}`,
      )
      setNow(after(TRANSACTION_LIFETIME_MS))
      const drained = await fixture.inventory.count()
      check(
        envelopesUnder(drained, old).length === 0,
        `after the transactions expired: ${show(envelopesUnder(drained, old))}`,
      )
      check(
        sameCounts(byHolding(drained, fresh), {
          'oauth-token-vault': 1,
          'oauth-revocation-retry': 1,
          'oauth-transaction': 2,
          'totp-secret': 1,
        }),
        `under the new key: ${show(byHolding(drained, fresh))}`,
      )
      keys.use('new')
      const [claimed] = await fixture.oauthAccounts.claimRevocationRetries({
        now: after(1000),
        leaseSeconds: 60,
        limit: 10,
      })
      check(claimed !== undefined, 'the re-sealed retry does not open with the new key alone')
    },
  ),
  conformanceCase(
    'envelope-inventory.mail-and-codes',
    'a sealed outbox message is counted until it is sent, and the sealed flow data of a one-time code until the code expires',
    async (context, check) => {
      const { fixture, keys, setNow } = context
      setNow(after(1000))
      const entry = await sealMailAndCode(context)
      const old = keys.versionOf('old')
      const counted = byHolding(await fixture.inventory.count(), old)
      check(
        sameCounts(counted, { 'mail-outbox': 1, 'one-time-code': 1 }),
        `counted ${show(counted)}, expected one message and one code payload`,
      )
      setNow(after(CODE_LIFETIME_MS - 1000))
      const live = byHolding(await fixture.inventory.count(), old)
      check(live['one-time-code'] === 1, `a second before the code expires: ${show(live)}`)
      setNow(after(CODE_LIFETIME_MS))
      const expired = byHolding(await fixture.inventory.count(), old)
      check(
        sameCounts(expired, { 'mail-outbox': 1 }),
        `at the code's expiry (the message still waiting): ${show(expired)}`,
      )
      const [claimed] = await fixture.mailOutbox.claim({ now: after(1000), limit: 10, leaseSeconds: 60 })
      check(claimed?.id === entry.id, 'the waiting message could not be claimed')
      const leased = byHolding(await fixture.inventory.count(), old)
      check(leased['mail-outbox'] === 1, `a message being sent is not counted: ${show(leased)}`)
      await fixture.mailOutbox.complete([entry.id])
      const sent = await fixture.inventory.count()
      check(envelopesUnder(sent, old).length === 0, `after sending: ${show(envelopesUnder(sent, old))}`)
    },
  ),
]
