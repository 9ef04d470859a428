import type { accounts } from '@portcullis/core/oauth'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { Codes, expectCode, sameTokens, tokens } from './fixture.js'
import {
  idOf,
  listAll,
  type ReencryptionContext,
  reencrypt,
  resealed,
  sameBytes,
  stagedRetry,
  vaultEntry,
} from './reencryption-fixture.js'

type Case = ConformanceCase<ReencryptionContext>

const summary = (report: accounts.OAuthVaultReencryptionReport) =>
  `scanned ${report.scanned}, resealed ${report.resealed}, raced ${report.raced}, unreadable ${report.unreadable.length}`

export const reencryptionCases: readonly Case[] = [
  conformanceCase(
    'oauth-vault-reencryption.reseals',
    'after the helper runs, vault tokens and staged retries sealed under the old key open with the new key alone, at the same token version',
    async (context, check) => {
      const { fixture, keys } = context
      const { store, inspector } = fixture
      const kept = await vaultEntry(store)
      const retry = await stagedRetry(store)
      keys.use('new', 'old')
      const report = await reencrypt(context)
      check(
        report.scanned === 2 && report.resealed === 2 && report.raced === 0 && report.unreadable.length === 0,
        summary(report),
      )
      check(
        (await inspector.readVaultEnvelope(kept.providerAccountId))?.keyVersion === keys.versionOf('new'),
        'the vault envelope is not under the new key',
      )
      check(
        (await inspector.readRetryEnvelope(retry.retryId))?.keyVersion === keys.versionOf('new'),
        'the retry envelope is not under the new key',
      )
      keys.use('new')
      const stored = await store.getTokens(kept.providerAccountId)
      check(
        stored !== null && sameTokens(stored.tokens, kept.tokens),
        'the vault tokens changed or do not open',
      )
      check(stored?.reference.version === kept.version, 're-encryption changed the token version')
      const [claimed] = await store.claimRevocationRetries({ now: new Date(), leaseSeconds: 60, limit: 10 })
      check(
        claimed?.retryId === retry.retryId && sameTokens(claimed.tokens, retry.tokens),
        'the staged retry does not open with the new key',
      )
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.bound-to-row',
    'a re-sealed envelope stays bound to its record: moved onto another account it does not open',
    async (context, check) => {
      const { fixture, keys } = context
      const { store, inspector } = fixture
      const victim = await vaultEntry(store)
      const other = await vaultEntry(store)
      keys.use('new', 'old')
      await reencrypt(context)
      const moved = await inspector.readVaultEnvelope(victim.providerAccountId)
      check(moved?.keyVersion === keys.versionOf('new'), 'the envelope was not re-sealed')
      if (moved === null) return
      check(
        await inspector.writeVaultEnvelope(other.providerAccountId, moved),
        'the inspector could not write',
      )
      await expectCode(
        check,
        store.getTokens(other.providerAccountId),
        Codes.vaultUnavailable,
        "a re-sealed envelope opened on another account's row",
      )
      const original = await store.getTokens(victim.providerAccountId)
      check(original !== null && sameTokens(original.tokens, victim.tokens), 'the original no longer opens')
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.refresh-after-rewrite',
    'a refresher that read the version before the rewrite still wins its compare-and-swap afterwards',
    async (context, check) => {
      const { fixture, keys } = context
      const entry = await vaultEntry(fixture.store)
      keys.use('new', 'old')
      const read = await fixture.store.getTokens(entry.providerAccountId)
      const report = await reencrypt(context)
      check(report.resealed === 1, summary(report))
      const refreshed = tokens('refreshed')
      const swapped = await fixture.store.replaceTokens({
        providerAccountId: entry.providerAccountId,
        expectedVersion: read?.reference.version ?? 0,
        tokens: refreshed,
      })
      check(swapped !== null, "the rewrite broke the refresher's compare-and-swap")
      keys.use('new')
      const stored = await fixture.store.getTokens(entry.providerAccountId)
      check(stored !== null && sameTokens(stored.tokens, refreshed), 'the refreshed tokens are not stored')
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.refresh-before-rewrite',
    'a refresh, discard or completed retry between the scan and the rewrite wins: the rewrite changes nothing and says so',
    async (context, check) => {
      const { fixture, keys } = context
      const { store, inspector } = fixture
      const refreshedEntry = await vaultEntry(store)
      const discarded = await vaultEntry(store)
      const retry = await stagedRetry(store)
      keys.use('new', 'old')
      const listed = await listAll(store, keys.activeKeyVersion, 10)
      const find = (id: string) => listed.find((stale) => idOf(stale) === id)
      const refreshed = tokens('refreshed')
      await store.replaceTokens({
        providerAccountId: refreshedEntry.providerAccountId,
        expectedVersion: refreshedEntry.version,
        tokens: refreshed,
      })
      await store.discardTokens({ providerAccountId: discarded.providerAccountId })
      const [claimed] = await store.claimRevocationRetries({ now: new Date(), leaseSeconds: 60, limit: 10 })
      await store.completeRevocationRetry({ retryId: retry.retryId, claim: claimed?.claim ?? '' })
      const afterRefresh = await inspector.readVaultEnvelope(refreshedEntry.providerAccountId)
      for (const id of [
        `vault:${refreshedEntry.providerAccountId}`,
        `vault:${discarded.providerAccountId}`,
        `retry:${retry.retryId}`,
      ]) {
        const stale = find(id)
        check(stale !== undefined, `${id.split(':')[0]} envelope was not listed`)
        if (stale === undefined) continue
        const written = await store.rewriteEnvelope({ stale, envelope: await resealed(store, keys, stale) })
        check(!written, `a rewrite of a changed ${id.split(':')[0]} record succeeded`)
      }
      check(
        sameBytes(await inspector.readVaultEnvelope(refreshedEntry.providerAccountId), afterRefresh),
        "the rewrite overwrote the refresher's envelope",
      )
      check(
        (await store.getTokens(discarded.providerAccountId)) === null,
        'the rewrite revived discarded tokens',
      )
      check(
        (await inspector.readRetryEnvelope(retry.retryId)) === null,
        'the rewrite revived a completed retry',
      )
      const stored = await store.getTokens(refreshedEntry.providerAccountId)
      check(stored !== null && sameTokens(stored.tokens, refreshed), 'the refreshed tokens were lost')
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.exact-envelope',
    'a rewrite applies only to the exact listed envelope: another envelope of the same record is left alone',
    async (context, check) => {
      const { fixture, keys } = context
      const { store, inspector } = fixture
      const entry = await vaultEntry(store)
      keys.use('new', 'old')
      const [stale] = await listAll(store, keys.activeKeyVersion, 10)
      check(stale?.kind === 'vault-tokens' && stale.envelope !== null, 'the vault envelope was not listed')
      if (stale === undefined || stale.envelope === null) return
      // Another envelope for the same row and version (as a second pass of an older instance would write).
      keys.use('old')
      const other = await resealed(store, keys, stale)
      keys.use('new', 'old')
      check(
        await inspector.writeVaultEnvelope(entry.providerAccountId, other),
        'the inspector could not write',
      )
      const written = await store.rewriteEnvelope({ stale, envelope: await resealed(store, keys, stale) })
      check(!written, 'a rewrite matched a record that no longer holds the listed envelope')
      check(
        sameBytes(await inspector.readVaultEnvelope(entry.providerAccountId), other),
        'the envelope in place was overwritten',
      )
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.concurrent-refresh',
    'refreshes racing a re-encryption all win, nothing is lost, and every envelope ends under the new key',
    async (context, check) => {
      const { fixture, keys } = context
      const { store } = fixture
      const entries = await Promise.all(Array.from({ length: 8 }, () => vaultEntry(store)))
      keys.use('new', 'old')
      const refreshed = entries.map(() => tokens('raced'))
      const [report, ...swaps] = await Promise.all([
        reencrypt(context, { batchSize: 2 }),
        ...entries.map((entry, index) =>
          store.replaceTokens({
            providerAccountId: entry.providerAccountId,
            expectedVersion: entry.version,
            tokens: refreshed[index] as accounts.ProviderTokenSet,
          }),
        ),
      ])
      check(
        swaps.every((swap) => swap !== null),
        `${swaps.filter((swap) => swap === null).length} refreshes lost`,
      )
      check(
        report !== undefined &&
          report.resealed + report.raced === report.scanned &&
          report.unreadable.length === 0,
        report === undefined ? 'no report' : summary(report),
      )
      keys.use('new')
      for (const [index, entry] of entries.entries()) {
        const stored = await store.getTokens(entry.providerAccountId).catch(() => null)
        const expected = refreshed[index] as accounts.ProviderTokenSet
        check(
          stored !== null && sameTokens(stored.tokens, expected),
          'a refreshed token set was lost or overwritten',
        )
      }
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.idempotent',
    'a second run finds nothing to do and changes no byte',
    async (context, check) => {
      const { fixture, keys } = context
      const { store, inspector } = fixture
      const entry = await vaultEntry(store)
      const retry = await stagedRetry(store)
      keys.use('new', 'old')
      await reencrypt(context)
      const vaultBefore = await inspector.readVaultEnvelope(entry.providerAccountId)
      const retryBefore = await inspector.readRetryEnvelope(retry.retryId)
      const again = await reencrypt(context)
      check(again.scanned === 0 && again.resealed === 0 && again.raced === 0, summary(again))
      check(
        sameBytes(await inspector.readVaultEnvelope(entry.providerAccountId), vaultBefore) &&
          sameBytes(await inspector.readRetryEnvelope(retry.retryId), retryBefore),
        'a second run rewrote an envelope',
      )
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.unreadable-reported',
    'an envelope no known key opens is reported by record and key version, left byte for byte in place, and opens again with its key',
    async (context, check) => {
      const { fixture, keys } = context
      const { store, inspector } = fixture
      keys.use('dropped')
      const lost = await vaultEntry(store)
      const lostRetry = await stagedRetry(store)
      keys.use('old')
      const kept = await vaultEntry(store)
      keys.use('new', 'old')
      const vaultBefore = await inspector.readVaultEnvelope(lost.providerAccountId)
      const retryBefore = await inspector.readRetryEnvelope(lostRetry.retryId)
      const report = await reencrypt(context)
      check(report.scanned === 3 && report.resealed === 1, summary(report))
      const dropped = keys.versionOf('dropped')
      const reported = report.unreadable.map((entry) =>
        entry.kind === 'vault-tokens'
          ? `vault ${entry.providerAccountId} v${entry.version} ${entry.keyVersion}`
          : `retry ${entry.retryId} ${entry.providerAccountId} ${entry.keyVersion}`,
      )
      check(
        reported.sort().join('|') ===
          [
            `retry ${lostRetry.retryId} ${lostRetry.providerAccountId} ${dropped}`,
            `vault ${lost.providerAccountId} v${lost.version} ${dropped}`,
          ]
            .sort()
            .join('|'),
        `reported: ${reported.join(', ') || 'nothing'}`,
      )
      check(
        report.unreadable.every(
          (entry) => entry.provider === store.provider && entry.clientId === store.clientId,
        ),
        'an unreadable envelope is reported without its registration',
      )
      const rendered = JSON.stringify(report)
      check(
        ![lost.tokens, lostRetry.tokens].some((set) => rendered.includes(set.accessToken)),
        'the report shows a token',
      )
      check(
        sameBytes(await inspector.readVaultEnvelope(lost.providerAccountId), vaultBefore) &&
          sameBytes(await inspector.readRetryEnvelope(lostRetry.retryId), retryBefore),
        'an unreadable envelope was changed or deleted',
      )
      check(
        (await inspector.readVaultEnvelope(kept.providerAccountId))?.keyVersion === keys.versionOf('new'),
        'a readable envelope beside the unreadable ones was not re-sealed',
      )
      keys.use('dropped')
      const back = await store.getTokens(lost.providerAccountId)
      check(back !== null && sameTokens(back.tokens, lost.tokens), 'the unreadable tokens are gone for good')
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.listing',
    'the listing pages through every stale envelope once, vault entries then retries, and never lists one under the active key',
    async (context, check) => {
      const { fixture, keys } = context
      const { store } = fixture
      const vaults = [await vaultEntry(store), await vaultEntry(store), await vaultEntry(store)]
      const retries = [await stagedRetry(store), await stagedRetry(store)]
      keys.use('new', 'old')
      const current = [await vaultEntry(store), await stagedRetry(store)]
      const expected = [
        ...vaults.map((entry) => `vault:${entry.providerAccountId}`),
        ...retries.map((entry) => `retry:${entry.retryId}`),
      ]
      for (const limit of [1, 2, 1000]) {
        const listed = (await listAll(store, keys.activeKeyVersion, limit)).map(idOf)
        check(new Set(listed).size === listed.length, `limit ${limit}: an envelope was listed twice`)
        check(
          [...listed].sort().join() === [...expected].sort().join(),
          `limit ${limit}: listed ${listed.length} of ${expected.length} stale envelopes, or a current one`,
        )
        const firstRetry = listed.findIndex((id) => id.startsWith('retry:'))
        check(
          firstRetry === -1 || listed.slice(firstRetry).every((id) => id.startsWith('retry:')),
          `limit ${limit}: vault entries came after retries`,
        )
      }
      check(current.length === 2, 'setup')
      let progress = 0
      const report = await reencrypt(context, {
        batchSize: 1,
        onProgress: () => {
          progress += 1
        },
      })
      check(report.resealed === 5 && report.scanned === 5, summary(report))
      check(progress >= 5, `onProgress ran ${progress} times for 5 batches`)
    },
  ),

  conformanceCase(
    'oauth-vault-reencryption.input',
    'a bad limit, key version, cursor or replacement envelope is oauth.account.invalid_input',
    async ({ fixture: { store } }, check) => {
      const entry = await vaultEntry(store)
      const list = (request: Partial<accounts.ListStaleEnvelopesRequest>) =>
        store.listStaleEnvelopes({ activeKeyVersion: 'v2', limit: 10, ...request })
      for (const limit of [0, 1001, 1.5]) {
        await expectCode(check, list({ limit }), Codes.invalidInput, `limit ${limit}`)
      }
      for (const activeKeyVersion of ['', 'has space', 'x'.repeat(65)]) {
        await expectCode(check, list({ activeKeyVersion }), Codes.invalidInput, 'key version')
      }
      await expectCode(
        check,
        list({ after: { kind: 'vault-tokens', providerAccountId: ' ', version: 1, envelope: null } }),
        Codes.invalidInput,
        'blank cursor',
      )
      const stale: accounts.StaleVaultEnvelope = {
        kind: 'vault-tokens',
        providerAccountId: entry.providerAccountId,
        version: entry.version,
        envelope: null,
      }
      for (const envelope of [
        null,
        { keyVersion: 'v2', ciphertext: new Uint8Array(0) },
        { keyVersion: '', ciphertext: new Uint8Array(32) },
        { keyVersion: 'v2', ciphertext: 'bytes' },
      ]) {
        await expectCode(
          check,
          store.rewriteEnvelope({ stale, envelope: envelope as never }),
          Codes.invalidInput,
          'replacement envelope',
        )
      }
      await expectCode(
        check,
        store.rewriteEnvelope({
          stale: { ...stale, kind: 'other' } as never,
          envelope: { keyVersion: 'v2', ciphertext: new Uint8Array(32) },
        }),
        Codes.invalidInput,
        'unknown kind',
      )
    },
  ),
]
