import { generateFlowId } from '@portcullis/core/codes'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { at, HOUR, newCode, type OneTimeCodeStoreFixture, present, sameCode, T0 } from './fixture.js'

type Case = ConformanceCase<OneTimeCodeStoreFixture>

export const codeLifecycleCases: readonly Case[] = [
  conformanceCase(
    'codes.round-trip',
    'the right code is consumed once and returns the issued record exactly',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount(), { payload: 'v1.sealed-payload' })
      const unknown = newCode(null, { purpose: 'sign-in' })
      await store.issue({ code })
      await store.issue({ code: unknown })
      const consumed = await store.consume(present(code))
      check(consumed.outcome === 'consumed', `the right code answered ${consumed.outcome}`)
      check(consumed.outcome === 'consumed' && sameCode(consumed.code, code), 'the record came back changed')
      const other = await store.consume(present(unknown))
      check(
        other.outcome === 'consumed' && sameCode(other.code, unknown),
        'a code without an account was lost',
      )
    },
  ),
  conformanceCase(
    'codes.single-use',
    'a consumed code is gone: replaying it, right or wrong, finds nothing',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount())
      await store.issue({ code })
      check((await store.consume(present(code))).outcome === 'consumed', 'the first use failed')
      const replay = await store.consume(present(code))
      check(replay.outcome === 'not-found', `the replay answered ${replay.outcome}`)
      const wrong = await store.consume(present(code, { plain: '000000' }))
      check(wrong.outcome === 'not-found', `a guess after use answered ${wrong.outcome}`)
    },
  ),
  conformanceCase(
    'codes.wrong-purpose',
    'the right code presented for another purpose finds nothing and counts nothing',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount(), { purpose: 'email-verification', maxAttempts: 2 })
      await store.issue({ code })
      for (const purpose of ['password-reset', 'sign-in', 'email-change'] as const) {
        const answer = await store.consume(present(code, { purpose }))
        check(answer.outcome === 'not-found', `as ${purpose}: ${answer.outcome}`)
      }
      const wrong = await store.consume(present(code, { plain: '000000' }))
      check(
        wrong.outcome === 'mismatch' && wrong.attemptsLeft === 1,
        `the other purposes were counted (${JSON.stringify(wrong)})`,
      )
      check((await store.consume(present(code))).outcome === 'consumed', 'the code no longer works')
    },
  ),
  conformanceCase(
    'codes.wrong-id',
    'the right code under another flow id finds nothing and leaves the real code working',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount())
      const neighbour = newCode(code.accountId, { purpose: 'sign-in' })
      await store.issue({ code })
      await store.issue({ code: neighbour })
      const unknown = await store.consume(present({ ...code, id: generateFlowId() }))
      check(unknown.outcome === 'not-found', `an unknown id answered ${unknown.outcome}`)
      // The digest binds the id: the right code sent to the neighbour's id is a wrong code there.
      const crossed = await store.consume({ ...present(code), id: neighbour.id, purpose: 'sign-in' })
      check(crossed.outcome === 'mismatch', `another flow's digest answered ${crossed.outcome}`)
      check((await store.consume(present(code))).outcome === 'consumed', 'the real code stopped working')
    },
  ),
  conformanceCase(
    'codes.mismatch-until-exhausted',
    'wrong codes are counted down to the limit, the last one deletes the record, and then nothing is found',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount(), { maxAttempts: 3 })
      await store.issue({ code })
      const answers = []
      for (const plain of ['000001', '000002', '000003'])
        answers.push(await store.consume(present(code, { plain })))
      check(
        JSON.stringify(answers) ===
          JSON.stringify([
            { outcome: 'mismatch', attemptsLeft: 2 },
            { outcome: 'mismatch', attemptsLeft: 1 },
            { outcome: 'exhausted' },
          ]),
        `three wrong codes answered ${JSON.stringify(answers)}`,
      )
      const right = await store.consume(present(code))
      check(right.outcome === 'not-found', `the right code after exhaustion answered ${right.outcome}`)
    },
  ),
  conformanceCase(
    'codes.right-after-mismatch',
    'the right code still works after fewer wrong codes than the limit, and reports the attempts made',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount(), { maxAttempts: 5 })
      await store.issue({ code })
      for (const plain of ['111111', '222222']) await store.consume(present(code, { plain }))
      const right = await store.consume(present(code))
      check(right.outcome === 'consumed', `the right code answered ${right.outcome}`)
      check(
        right.outcome === 'consumed' && sameCode(right.code, code, 2),
        'the record does not show 2 attempts',
      )
    },
  ),
  conformanceCase(
    'codes.single-attempt',
    'with maxAttempts 1 the first wrong code exhausts the record',
    async ({ store, createAccount }, check) => {
      const code = newCode(await createAccount(), { maxAttempts: 1 })
      await store.issue({ code })
      const wrong = await store.consume(present(code, { plain: '999999' }))
      check(wrong.outcome === 'exhausted', `the wrong code answered ${wrong.outcome}`)
      check((await store.consume(present(code))).outcome === 'not-found', 'the record survived exhaustion')
    },
  ),
  conformanceCase(
    'codes.expiry',
    'a code works until just before expiresAt; from expiresAt it is expired and counts nothing',
    async ({ store, createAccount }, check) => {
      const accountId = await createAccount()
      const early = newCode(accountId, { purpose: 'sign-in' })
      const late = newCode(accountId, { maxAttempts: 2 })
      await store.issue({ code: early })
      await store.issue({ code: late })
      const inTime = await store.consume(present(early, { now: at(HOUR - 1) }))
      check(inTime.outcome === 'consumed', `1 ms before expiry: ${inTime.outcome}`)
      const expired = await store.consume(present(late, { now: at(HOUR) }))
      check(expired.outcome === 'expired', `at expiry: ${expired.outcome}`)
      const guess = await store.consume(present(late, { now: at(2 * HOUR), plain: '000000' }))
      check(guess.outcome === 'expired', `a wrong code after expiry answered ${guess.outcome}`)
      // Nothing was counted on the expired record: both attempts are still there.
      const wrongInTime = await store.consume(present(late, { now: T0, plain: '000000' }))
      check(
        wrongInTime.outcome === 'mismatch' && wrongInTime.attemptsLeft === 1,
        `expired answers were counted (${JSON.stringify(wrongInTime)})`,
      )
      const rightInTime = await store.consume(present(late, { now: T0 }))
      check(
        rightInTime.outcome === 'consumed',
        `the code was burned by expired answers (${rightInTime.outcome})`,
      )
    },
  ),
  conformanceCase(
    'codes.supersede',
    'a new code replaces the live codes of its purpose and account (or address), and only those',
    async ({ store, createAccount }, check) => {
      const [accountId, otherAccount] = [await createAccount(), await createAccount()]
      const old = newCode(accountId)
      const otherPurpose = newCode(accountId, { purpose: 'email-verification' })
      const otherOwner = newCode(otherAccount)
      const kept = newCode(accountId)
      for (const code of [old, otherPurpose, otherOwner]) await store.issue({ code })
      const fresh = newCode(accountId)
      await store.issue({ code: fresh })
      check((await store.consume(present(old))).outcome === 'not-found', 'the superseded code still works')
      check((await store.consume(present(fresh))).outcome === 'consumed', 'the new code does not work')
      check(
        (await store.consume(present(otherPurpose))).outcome === 'consumed',
        'another purpose was superseded',
      )
      check((await store.consume(present(otherOwner))).outcome === 'consumed', "another account's code went")
      await store.issue({ code: kept })
      const beside = newCode(accountId)
      await store.issue({ code: beside, supersede: false })
      check((await store.consume(present(kept))).outcome === 'consumed', 'supersede: false replaced a code')
      check((await store.consume(present(beside))).outcome === 'consumed', 'the code beside it does not work')
    },
  ),
  conformanceCase(
    'codes.supersede-by-address',
    'without an account a new code replaces the codes of the same purpose and address only',
    async ({ store, createAccount }, check) => {
      const address = newCode(null).address
      const old = newCode(null, { address, purpose: 'sign-in' })
      const otherAddress = newCode(null, { purpose: 'sign-in' })
      const owned = newCode(await createAccount(), { address, purpose: 'sign-in' })
      for (const code of [old, otherAddress, owned]) await store.issue({ code })
      const fresh = newCode(null, { address, purpose: 'sign-in' })
      await store.issue({ code: fresh })
      check((await store.consume(present(old))).outcome === 'not-found', 'the superseded code still works')
      check((await store.consume(present(fresh))).outcome === 'consumed', 'the new code does not work')
      check(
        (await store.consume(present(otherAddress))).outcome === 'consumed',
        'another address was superseded',
      )
      check((await store.consume(present(owned))).outcome === 'consumed', "an account's code was superseded")
    },
  ),
  conformanceCase(
    'codes.revoke',
    "revoke deletes the account's live codes (of the given purposes), counts them, and touches no other",
    async ({ store, createAccount }, check) => {
      const [accountId, otherAccount] = [await createAccount(), await createAccount()]
      const reset = newCode(accountId)
      const signIn = newCode(accountId, { purpose: 'sign-in' })
      const verify = newCode(accountId, { purpose: 'email-verification' })
      const other = newCode(otherAccount)
      const unowned = newCode(null)
      for (const code of [reset, signIn, verify, other, unowned]) await store.issue({ code })
      const some = await store.revoke({ accountId, purposes: ['password-reset', 'sign-in'] })
      check(some === 2, `revoking two purposes reported ${some}`)
      check((await store.consume(present(reset))).outcome === 'not-found', 'a revoked code still works')
      check((await store.consume(present(signIn))).outcome === 'not-found', 'a revoked code still works')
      const newer = newCode(accountId, { purpose: 'email-change-undo' })
      await store.issue({ code: newer })
      const all = await store.revoke({ accountId })
      check(all === 2, `revoking every purpose reported ${all}`)
      check((await store.consume(present(verify))).outcome === 'not-found', 'a revoked code still works')
      check((await store.consume(present(newer))).outcome === 'not-found', 'a revoked code still works')
      check((await store.revoke({ accountId })).valueOf() === 0, 'a second revoke counted something')
      check(
        (await store.consume(present(other))).outcome === 'consumed',
        "another account's code was revoked",
      )
      check(
        (await store.consume(present(unowned))).outcome === 'consumed',
        'a code without account was revoked',
      )
    },
  ),
]
