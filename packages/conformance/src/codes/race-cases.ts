import type { ConsumeCodeOutcome } from '@portcullis/core/codes'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { newCode, type OneTimeCodeStoreFixture, present } from './fixture.js'

type Case = ConformanceCase<OneTimeCodeStoreFixture>

const CALLERS = 16

function tally(answers: readonly ConsumeCodeOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const answer of answers) counts[answer.outcome] = (counts[answer.outcome] ?? 0) + 1
  return counts
}

export const codeRaceCases: readonly Case[] = [
  conformanceCase(
    'codes.concurrent-consume',
    `of ${CALLERS} concurrent consumers of one code on two instances exactly one gets it`,
    async ({ store, peer = store, createAccount }, check) => {
      const code = newCode(await createAccount())
      await store.issue({ code })
      const answers = await Promise.all(
        Array.from({ length: CALLERS }, (_, index) =>
          (index % 2 === 0 ? store : peer).consume(present(code)),
        ),
      )
      const counts = tally(answers)
      check(counts.consumed === 1, `outcomes ${JSON.stringify(counts)}`)
      check(counts['not-found'] === CALLERS - 1, `the losers answered ${JSON.stringify(counts)}`)
    },
  ),
  conformanceCase(
    'codes.concurrent-guesses',
    'concurrent wrong codes on two instances are counted one by one: never more than maxAttempts in total',
    async ({ store, peer = store, createAccount }, check) => {
      const code = newCode(await createAccount(), { maxAttempts: 5 })
      await store.issue({ code })
      const answers = await Promise.all(
        Array.from({ length: CALLERS }, (_, index) =>
          (index % 2 === 0 ? store : peer).consume(
            present(code, { plain: String(100_000 + index).padStart(6, '0') }),
          ),
        ),
      )
      const counts = tally(answers)
      check(
        counts.mismatch === 4 && counts.exhausted === 1 && counts['not-found'] === CALLERS - 5,
        `outcomes ${JSON.stringify(counts)}`,
      )
      const left = answers
        .flatMap((answer) => (answer.outcome === 'mismatch' ? [answer.attemptsLeft] : []))
        .sort()
      check(JSON.stringify(left) === '[1,2,3,4]', `attemptsLeft ${JSON.stringify(left)}`)
      const right = await store.consume(present(code))
      check(right.outcome === 'not-found', `the right code after exhaustion answered ${right.outcome}`)
    },
  ),
  conformanceCase(
    'codes.concurrent-right-and-wrong',
    'the right code racing wrong ones on two instances is consumed at most once, and never after exhaustion',
    async ({ store, peer = store, createAccount }, check) => {
      const code = newCode(await createAccount(), { maxAttempts: 3 })
      await store.issue({ code })
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? store : peer).consume(
            present(code, index === 3 ? {} : { plain: String(200_000 + index) }),
          ),
        ),
      )
      const counts = tally(answers)
      const consumed = counts.consumed ?? 0
      const exhausted = counts.exhausted ?? 0
      check(consumed + exhausted === 1, `outcomes ${JSON.stringify(counts)}`)
      check((counts.mismatch ?? 0) <= 2, `more than maxAttempts counted: ${JSON.stringify(counts)}`)
    },
  ),
  conformanceCase(
    'codes.concurrent-supersede',
    'of 8 codes issued at once for one account and purpose on two instances exactly one is left live',
    async ({ store, peer = store, createAccount }, check) => {
      const accountId = await createAccount()
      const codes = Array.from({ length: 8 }, () => newCode(accountId, { purpose: 'sign-in' }))
      await Promise.all(codes.map((code, index) => (index % 2 === 0 ? store : peer).issue({ code })))
      const answers = await Promise.all(codes.map((code) => store.consume(present(code))))
      const counts = tally(answers)
      check(counts.consumed === 1, `outcomes ${JSON.stringify(counts)}`)
    },
  ),
]
