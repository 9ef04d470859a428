import type { RateLimitDecision } from '@portcullis/core/local-accounts'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  at,
  BAD_DATES,
  concurrently,
  digest,
  expectCode,
  label,
  loose,
  type RateLimitStoreFixture,
  sameTime,
  T0,
} from './fixture.js'

type Case = ConformanceCase<RateLimitStoreFixture>

const INVALID = 'local.invalid_input'

const summary = (decisions: readonly RateLimitDecision[]) =>
  decisions.map((decision) => `${decision.count}${decision.allowed ? '+' : '-'}`).join(' ')

export const rateLimitCases: readonly Case[] = [
  conformanceCase(
    'rate-limits.fixed-window',
    'a window opens at the first attempt, allows `limit` attempts, and a new one opens at resetAt',
    async ({ store }, check) => {
      const key = digest()
      const decisions: RateLimitDecision[] = []
      for (let attempt = 0; attempt < 5; attempt += 1) {
        decisions.push(await store.consume({ key, limit: 3, windowSeconds: 60, now: at(attempt * 1000) }))
      }
      check(summary(decisions) === '1+ 2+ 3+ 4- 5-', `decisions ${summary(decisions)}`)
      check(
        decisions.every((decision) => sameTime(decision.resetAt, at(60_000))),
        'resetAt is not first attempt + window',
      )
      const late = await store.consume({ key, limit: 3, windowSeconds: 60, now: at(60_000 - 1) })
      check(!late.allowed && late.count === 6, '1 ms before resetAt the window had ended')
      const fresh = await store.consume({ key, limit: 3, windowSeconds: 60, now: at(60_000) })
      check(
        fresh.allowed && fresh.count === 1 && sameTime(fresh.resetAt, at(120_000)),
        'no new window at resetAt',
      )
    },
  ),
  conformanceCase(
    'rate-limits.keys-and-reset',
    'keys count independently, and reset forgets only its key',
    async ({ store }, check) => {
      const [a, b] = [digest(), digest()]
      for (let attempt = 0; attempt < 3; attempt += 1)
        await store.consume({ key: a, limit: 2, windowSeconds: 60, now: T0 })
      const other = await store.consume({ key: b, limit: 2, windowSeconds: 60, now: T0 })
      check(other.allowed && other.count === 1, 'another key was counted too')
      await store.reset(a)
      const afterReset = await store.consume({ key: a, limit: 2, windowSeconds: 60, now: at(1000) })
      check(afterReset.allowed && afterReset.count === 1, 'reset did not forget the key')
      check(sameTime(afterReset.resetAt, at(61_000)), 'reset did not start a new window')
      const untouched = await store.consume({ key: b, limit: 2, windowSeconds: 60, now: at(1000) })
      check(untouched.count === 2, 'reset of one key reset another')
      await store.reset(digest())
    },
  ),
  conformanceCase(
    'rate-limits.concurrent-consume',
    'of 40 concurrent attempts with limit 10 exactly 10 are allowed, each counted once',
    async (fixture, check) => {
      const key = digest()
      const decisions = await concurrently(fixture, 40, (store) =>
        store.consume({ key, limit: 10, windowSeconds: 60, now: T0 }),
      )
      const allowed = decisions.filter((decision) => decision.allowed).length
      check(allowed === 10, `${allowed} attempts allowed`)
      const counts = decisions.map((decision) => decision.count).sort((x, y) => x - y)
      check(
        counts.join() === Array.from({ length: 40 }, (_, index) => index + 1).join(),
        'counts are not 1..40',
      )
      check(
        decisions.every((decision) => decision.allowed === decision.count <= 10),
        'allowed does not follow the count',
      )
    },
  ),
  conformanceCase(
    'rate-limits.input',
    'malformed keys, limits, windows and dates are typed invalid-input errors and count nothing',
    async ({ store }, check) => {
      const key = digest()
      const request = { key, limit: 5, windowSeconds: 60, now: T0 }
      const bad: Record<string, unknown>[] = [
        ...['', 'x'.repeat(257), 'line\nbreak', 42, undefined].map((value) => ({ key: value })),
        ...[0, -1, 1.5, '5', 1_000_001, Number.NaN].map((value) => ({ limit: value })),
        ...[0, 0.5, 86_401, '60', undefined].map((value) => ({ windowSeconds: value })),
        ...BAD_DATES.map((value) => ({ now: value })),
      ]
      for (const overrides of bad) {
        await expectCode(
          check,
          store.consume(loose({ ...request, ...overrides })),
          INVALID,
          `consume ${label(overrides)}`,
        )
      }
      for (const value of ['', 'x'.repeat(257), 7, undefined]) {
        await expectCode(check, store.reset(loose(value)), INVALID, `reset ${label(value)}`)
      }
      const first = await store.consume(request)
      check(first.count === 1, `refused attempts were counted (count ${first.count})`)
      const longest = await store.consume({
        ...request,
        key: digest().repeat(4),
        limit: 1_000_000,
        windowSeconds: 86_400,
      })
      check(longest.allowed, 'the largest valid key, limit and window were refused')
    },
  ),
]
