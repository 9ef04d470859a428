import { sweepSecurityLog } from '@portcullis/core/security-log'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  canonical,
  codeOf,
  entry,
  everyPage,
  newestFirst,
  type SecurityLogFixture,
  sameEntry,
  unique,
  uniqueType,
} from './fixture.js'

type Case = ConformanceCase<SecurityLogFixture>

const T0 = Date.UTC(2026, 10, 1, 12)
const at = (offsetMs: number) => new Date(T0 + offsetMs)
const FAR = { since: new Date(0), until: new Date(Date.UTC(2200, 0)) }

export const readCases: readonly Case[] = [
  conformanceCase(
    'security-log.account-newest-first',
    "one account's entries come back newest first, ties by id, exactly as appended, and no one else's",
    async ({ log }, check) => {
      const mine = unique('acct')
      const other = unique('acct')
      const entries = [
        entry({
          at: at(3_000),
          accountId: mine,
          type: 'login.succeeded',
          reason: null,
          sessionHandle: 'h-1',
        }),
        entry({
          at: at(1_000),
          accountId: mine,
          device: null,
          clientAddress: null,
          clientAddressHash: 'v1.abc',
        }),
        entry({ at: at(2_000), accountId: mine, details: { provider: 'google', relinked: false, epoch: 7 } }),
        entry({
          at: at(2_000),
          accountId: mine,
          actorId: 'admin-1',
          device: { browser: null, os: 'iOS 18', platform: null },
        }),
        entry({ at: at(2_500), accountId: other }),
      ]
      await log.append(entries)
      const page = await log.listForAccount({ accountId: mine, limit: 50 })
      const expected = newestFirst(entries.filter((each) => each.accountId === mine))
      check(page.entries.length === 4, `got ${page.entries.length} entries`)
      check(page.nextCursor === null, 'a single page had a next cursor')
      page.entries.forEach((got, index) => {
        check(
          sameEntry(got, expected[index]),
          `entry ${index}: ${canonical(got)} vs ${expected[index] && canonical(expected[index])}`,
        )
      })
    },
  ),
  conformanceCase(
    'security-log.account-pages',
    'cursor pages of one account cover every entry exactly once, in order, the last page without a cursor',
    async ({ log }, check) => {
      const accountId = unique('acct')
      const entries = Array.from({ length: 23 }, (_, n) =>
        entry({ at: at(Math.floor(n / 3) * 1000), accountId }),
      )
      await log.append(entries)
      const pages = await everyPage(log, accountId, 5)
      check(pages.length === 5, `got ${pages.length} pages`)
      check(
        pages.slice(0, -1).every((page) => page.length === 5),
        'a page before the last was short',
      )
      const seen = pages.flat().map(canonical)
      const expected = newestFirst(entries).map(canonical)
      check(JSON.stringify(seen) === JSON.stringify(expected), 'the pages are not the entries newest first')
      const exact = await everyPage(log, accountId, 23)
      check(exact.length === 1, 'a page holding exactly every entry still pointed to another')
    },
  ),
  conformanceCase(
    'security-log.cursor-stable-under-appends',
    'paging while two instances append newer and same-instant entries repeats and skips nothing the first page could see',
    async ({ log, peer }, check) => {
      const accountId = unique('acct')
      const before = Array.from({ length: 30 }, (_, n) => entry({ at: at(n * 10), accountId }))
      await log.append(before)
      let page = await log.listForAccount({ accountId, limit: 7 })
      const seen = [...page.entries]
      let round = 0
      while (page.nextCursor !== null) {
        // Newer entries on both instances, and entries at the instant of the newest, while the reader pages.
        await Promise.all([
          log.append([entry({ at: at(10_000 + round), accountId })]),
          peer.append([entry({ at: at(290), accountId }), entry({ at: at(20_000 + round), accountId })]),
        ])
        round += 1
        page = await peer.listForAccount({ accountId, limit: 7, cursor: page.nextCursor })
        seen.push(...page.entries)
      }
      const ids = seen.map((each) => each.id)
      check(new Set(ids).size === ids.length, 'an entry was repeated')
      const expected = newestFirst(before).map((each) => each.id)
      const original = ids.filter((id) => expected.includes(id))
      check(
        JSON.stringify(original) === JSON.stringify(expected),
        'an entry of the first view was skipped or reordered',
      )
      const newer = seen.filter((each) => !expected.includes(each.id))
      check(
        newer.every((each) => each.at.getTime() <= at(290).getTime()),
        'an entry newer than the first page showed up on a later page',
      )
    },
  ),
  conformanceCase(
    'security-log.by-type-window',
    'a type lists across accounts, newest first, since inclusive, until exclusive, in pages, and no other type',
    async ({ log }, check) => {
      const type = uniqueType()
      const inside = Array.from({ length: 9 }, (_, n) =>
        entry({ at: at(1_000 + n * 100), type, accountId: unique('acct') }),
      )
      const outside = [
        entry({ at: at(999), type, accountId: unique('acct') }),
        entry({ at: at(2_000), type, accountId: unique('acct') }),
        entry({ at: at(1_500), type: uniqueType(), accountId: unique('acct') }),
      ]
      const since = at(1_000)
      const until = at(2_000)
      await log.append([...inside, ...outside, entry({ at: at(1_200), type, accountId: null })])
      const seen = []
      let cursor: string | undefined
      do {
        const page = await log.listByType({ type, since, until, limit: 4, cursor })
        seen.push(...page.entries)
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      check(seen.length === 10, `got ${seen.length} entries`)
      check(
        seen.every((each) => each.type === type),
        'another type was listed',
      )
      check(
        seen.every((each) => each.at >= since && each.at < until),
        'an entry outside [since, until) was listed',
      )
      const order = seen.map(canonical)
      check(JSON.stringify(order) === JSON.stringify(newestFirst(seen).map(canonical)), 'not newest first')
      const empty = await log.listByType({ type, since: at(5_000), until: at(5_000), limit: 10 })
      check(empty.entries.length === 0 && empty.nextCursor === null, 'an empty window listed something')
    },
  ),
]

export const writeCases: readonly Case[] = [
  conformanceCase(
    'security-log.append-idempotent',
    'an entry appended again (a retried batch) is stored once, even by two instances at once',
    async ({ log, peer }, check) => {
      const accountId = unique('acct')
      const batch = Array.from({ length: 5 }, (_, n) => entry({ at: at(n), accountId }))
      await log.append(batch)
      await log.append(batch)
      await Promise.all([log.append([...batch, entry({ at: at(9), accountId })]), peer.append(batch)])
      const page = await log.listForAccount({ accountId, limit: 50 })
      check(page.entries.length === 6, `stored ${page.entries.length}`)
      await log.append([])
    },
  ),
  conformanceCase(
    'security-log.concurrent-appends',
    'batches appended at once by two instances are all stored',
    async ({ log, peer }, check) => {
      const accountId = unique('acct')
      const batches = Array.from({ length: 12 }, (_, b) =>
        Array.from({ length: 10 }, (_, n) => entry({ at: at(b * 10 + n), accountId })),
      )
      await Promise.all(batches.map((batch, b) => (b % 2 === 0 ? log : peer).append(batch)))
      const pages = await everyPage(peer, accountId, 200)
      check(pages.flat().length === 120, `stored ${pages.flat().length} of 120`)
    },
  ),
  conformanceCase(
    'security-log.batch-all-or-nothing',
    'a batch with one malformed entry is refused with security_log.invalid_input and stores none of it',
    async ({ log }, check) => {
      const accountId = unique('acct')
      const bad = [
        { ...entry({ at: at(1), accountId }), id: 'short' },
        { ...entry({ at: at(1), accountId }), type: 'no-dots' },
        { ...entry({ at: at(1), accountId }), accountId: `a\u0000b` },
        { ...entry({ at: at(1), accountId }), details: { token: { nested: true } } },
        { ...entry({ at: at(1), accountId }), at: new Date(Number.NaN) },
      ]
      for (const wrong of bad) {
        const code = await codeOf(log.append([entry({ at: at(0), accountId }), wrong as never]))
        check(code === 'security_log.invalid_input', `a malformed entry answered ${code}`)
      }
      const page = await log.listForAccount({ accountId, limit: 10 })
      check(page.entries.length === 0, 'part of a refused batch was stored')
      const tooMany = Array.from({ length: 1001 }, (_, n) => entry({ at: at(n), accountId }))
      check(
        (await codeOf(log.append(tooMany))) === 'security_log.invalid_input',
        'a batch over 1000 was taken',
      )
    },
  ),
  conformanceCase(
    'security-log.odd-values',
    'identifiers and details with quotes, non-ASCII text and the maximum lengths come back unchanged',
    async ({ log }, check) => {
      const accountId = `${unique('acct')}-'quoted' "double" $1 \\ % Ünïcødé 账户 🔑`
      const entries = [
        entry({
          at: at(1),
          accountId,
          sessionHandle: `h${'x'.repeat(254)}`,
          details: {
            provider: 'o\'brien "idp" ✓',
            remaining: 0,
            pending: true,
            epoch: 9_007_199_254_740_991,
          },
        }),
        entry({
          at: at(2),
          accountId,
          clientAddress: 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255',
          details: {},
        }),
      ]
      await log.append(entries)
      const page = await log.listForAccount({ accountId, limit: 10 })
      const expected = newestFirst(entries)
      check(page.entries.length === 2, `got ${page.entries.length}`)
      page.entries.forEach((got, index) => {
        check(sameEntry(got, expected[index]), `changed: ${canonical(got).slice(0, 200)}`)
      })
    },
  ),
]

export const inputCases: readonly Case[] = [
  conformanceCase(
    'security-log.bad-requests',
    'malformed list and sweep requests are typed errors (security_log.invalid_input or invalid_cursor)',
    async ({ log }, check) => {
      const accountId = unique('acct')
      await log.append([entry({ at: at(1), accountId }), entry({ at: at(2), accountId })])
      const { nextCursor } = await log.listForAccount({ accountId, limit: 1 })
      check(typeof nextCursor === 'string', 'no cursor for a second page')
      const cases: [string, () => Promise<unknown>, string][] = [
        ['limit 0', () => log.listForAccount({ accountId, limit: 0 }), 'security_log.invalid_input'],
        ['limit 201', () => log.listForAccount({ accountId, limit: 201 }), 'security_log.invalid_input'],
        ['limit 1.5', () => log.listForAccount({ accountId, limit: 1.5 }), 'security_log.invalid_input'],
        [
          'empty account',
          () => log.listForAccount({ accountId: '', limit: 5 }),
          'security_log.invalid_input',
        ],
        [
          'garbage cursor',
          () => log.listForAccount({ accountId, limit: 5, cursor: 'garbage' }),
          'security_log.invalid_cursor',
        ],
        [
          'a cursor with a quote',
          () => log.listForAccount({ accountId, limit: 5, cursor: `${nextCursor}'` }),
          'security_log.invalid_cursor',
        ],
        [
          'bad type',
          () => log.listByType({ type: "x' or 1=1", ...FAR, limit: 5 }),
          'security_log.invalid_input',
        ],
        [
          'until before since',
          () => log.listByType({ type: 'login.failed', since: at(2), until: at(1), limit: 5 }),
          'security_log.invalid_input',
        ],
        [
          'an invalid date',
          () => log.listByType({ type: 'login.failed', since: new Date(Number.NaN), until: at(1), limit: 5 }),
          'security_log.invalid_input',
        ],
        ['sweep limit 0', () => log.sweep({ before: at(0), limit: 0 }), 'security_log.invalid_input'],
        [
          'sweep limit 10001',
          () => log.sweep({ before: at(0), limit: 10_001 }),
          'security_log.invalid_input',
        ],
        [
          'sweep without a date',
          () => log.sweep({ before: 'yesterday' as never, limit: 5 }),
          'security_log.invalid_input',
        ],
      ]
      for (const [name, run, expected] of cases) {
        const code = await codeOf(run())
        check(code === expected, `${name} answered ${code}`)
      }
      const second = await log.listForAccount({ accountId, limit: 5, cursor: nextCursor ?? undefined })
      check(second.entries.length === 1, 'the genuine cursor stopped working after the refusals')
    },
  ),
]

// The sweep cases work where no other case writes: the bounded sweep in 1990, the retention case in the
// early 1980s (its cutoff stays before 1990, and it runs after the bounded sweep).
const DAY = 86_400_000
const old = (days: number) => new Date(Date.UTC(1990, 0, 1) + days * DAY)
const older = (days: number) => new Date(Date.UTC(1980, 0, 1) + days * DAY)

export const retentionCases: readonly Case[] = [
  conformanceCase(
    'security-log.sweep-bounded',
    'a sweep deletes only entries before its instant, oldest first, at most its limit per call',
    async ({ log }, check) => {
      const accountId = unique('acct')
      const entries = Array.from({ length: 12 }, (_, n) => entry({ at: old(n), accountId }))
      await log.append(entries)
      const first = await log.sweep({ before: old(10), limit: 4 })
      check(first === 4, `the first sweep deleted ${first}`)
      const left = await log.listForAccount({ accountId, limit: 50 })
      check(left.entries.length === 8, `${left.entries.length} left after the first sweep`)
      check(
        left.entries.every((each) => each.at.getTime() >= old(4).getTime()),
        'a sweep did not take the oldest first',
      )
      const rest = await log.sweep({ before: old(10), limit: 100 })
      check(rest === 6, `the second sweep deleted ${rest}`)
      const kept = await log.listForAccount({ accountId, limit: 50 })
      check(
        JSON.stringify(kept.entries.map((each) => each.at.getTime())) ===
          JSON.stringify([old(11).getTime(), old(10).getTime()]),
        'the entries at or after the sweep instant are not exactly what is left',
      )
      check((await log.sweep({ before: old(10), limit: 100 })) === 0, 'a repeated sweep deleted more')
    },
  ),
  conformanceCase(
    'security-log.retention',
    'sweepSecurityLog keeps the retention window (180 days by default) and works in bounded batches',
    async ({ log }, check) => {
      const accountId = unique('acct')
      const now = older(1000)
      const entries = [
        ...Array.from({ length: 7 }, (_, n) => entry({ at: older(1000 - 181 - n), accountId })),
        entry({ at: older(1000 - 179), accountId }),
        entry({ at: older(1000 - 30), accountId }),
      ]
      await log.append(entries)
      const partial = await sweepSecurityLog(log, { now, batchSize: 2, maxBatches: 2 })
      check(partial.deleted === 4 && partial.more, `a bounded call answered ${JSON.stringify(partial)}`)
      const rest = await sweepSecurityLog(log, { now, batchSize: 2 })
      check(rest.deleted === 3 && !rest.more, `the next call answered ${JSON.stringify(rest)}`)
      const kept = await log.listForAccount({ accountId, limit: 50 })
      check(kept.entries.length === 2, `${kept.entries.length} kept inside the window`)
      const shorter = await sweepSecurityLog(log, { now, retentionDays: 90 })
      check(shorter.deleted === 1, `a 90-day retention deleted ${shorter.deleted}`)
    },
  ),
]
