import { randomBytes } from 'node:crypto'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { binding, record, type StepUpStoreFixture, sameRecord, serviceOver, T0 } from './fixture.js'

type Case = ConformanceCase<StepUpStoreFixture>

const at = (milliseconds: number): Date => new Date(T0.getTime() + milliseconds)

export const stepUpCases: readonly Case[] = [
  conformanceCase(
    'step-up.round-trip',
    'take returns exactly the saved record once, and only for its digest',
    async ({ store }, check) => {
      const [mine, other] = [record(), record()]
      await store.save(mine)
      await store.save(other)
      check(sameRecord(await store.take(mine.digest), mine), 'take did not return the saved record exactly')
      check((await store.take(mine.digest)) === null, 'a taken record was returned again')
      check(sameRecord(await store.take(other.digest), other), 'taking one record disturbed another')
      check((await store.take(record().digest)) === null, 'an unknown digest returned a record')
    },
  ),
  conformanceCase(
    'step-up.concurrent-take',
    'of 32 concurrent takes of one digest exactly one gets the record',
    async ({ store }, check) => {
      const saved = record()
      await store.save(saved)
      const taken = await Promise.all(Array.from({ length: 32 }, () => store.take(saved.digest)))
      check(taken.filter((result) => result !== null).length === 1, 'not exactly one take won')
    },
  ),
  conformanceCase(
    'step-up.duplicate-digest',
    'saving a second record under a stored digest fails and leaves the first intact',
    async ({ store }, check) => {
      const first = record()
      await store.save(first)
      const second = record({ digest: first.digest, accountId: 'someone-else' })
      const code = await store.save(second).then(
        () => 'saved',
        (error: unknown) => (error as { code?: string }).code,
      )
      check(code === 'step-up.duplicate', `second save answered ${code}`)
      check(sameRecord(await store.take(first.digest), first), 'the duplicate replaced the first record')
    },
  ),
  conformanceCase(
    'step-up.purge-expired',
    'purgeExpired removes records expiring at or before now and keeps later ones',
    async ({ store }, check) => {
      const expired = record({ expiresAt: at(-1), issuedAt: at(-300_000) })
      const boundary = record({ expiresAt: at(0), issuedAt: at(-300_000) })
      const live = record({ expiresAt: at(1), issuedAt: at(-300_000) })
      for (const saved of [expired, boundary, live]) await store.save(saved)
      const removed = await store.purgeExpired(T0)
      check(removed >= 2, `purge reported ${removed} removals`)
      check((await store.take(expired.digest)) === null, 'an expired record survived')
      check((await store.take(boundary.digest)) === null, 'a record expiring exactly now survived')
      check(sameRecord(await store.take(live.digest), live), 'a live record was purged')
    },
  ),
  conformanceCase(
    'step-up.single-use',
    'a credential is consumed once; the replay is rejected',
    async ({ store }, check) => {
      const { service } = serviceOver(store)
      const bound = binding()
      const credential = await service.issue(bound)
      const first = await service.consume({ ...bound, token: credential.reveal() })
      check(first.kind === 'consumed', `first redemption was ${first.kind}`)
      check(first.kind === 'consumed' && first.grant.purpose === bound.purpose, 'grant names another purpose')
      const replay = await service.consume({ ...bound, token: credential.reveal() })
      check(replay.kind === 'rejected', `replay was ${replay.kind}`)
    },
  ),
  conformanceCase(
    'step-up.concurrent-redemption',
    'of 32 concurrent redemptions of one credential exactly one succeeds',
    async ({ store }, check) => {
      const { service } = serviceOver(store)
      const bound = binding()
      const token = (await service.issue(bound)).reveal()
      const results = await Promise.all(
        Array.from({ length: 32 }, () => service.consume({ ...bound, token })),
      )
      check(
        results.filter((result) => result.kind === 'consumed').length === 1,
        'not exactly one redemption won',
      )
      check(
        results.every((result) => result.kind !== 'unavailable'),
        'the store failed under concurrency',
      )
    },
  ),
  conformanceCase(
    'step-up.expiry',
    'a credential works until just before expiresAt and is rejected at expiresAt',
    async ({ store }, check) => {
      const { service, setNow } = serviceOver(store)
      const early = binding()
      const late = binding()
      const earlyCredential = await service.issue(early)
      const lateCredential = await service.issue(late)
      setNow(new Date(earlyCredential.expiresAt.getTime() - 1))
      const inTime = await service.consume({ ...early, token: earlyCredential.reveal() })
      check(inTime.kind === 'consumed', `1 ms before expiry: ${inTime.kind}`)
      setNow(lateCredential.expiresAt)
      const expired = await service.consume({ ...late, token: lateCredential.reveal() })
      check(expired.kind === 'rejected', `at expiry: ${expired.kind}`)
    },
  ),
  conformanceCase(
    'step-up.wrong-binding-burns',
    'the right token with a wrong account, purpose, epoch or session is rejected and burned',
    async ({ store }, check) => {
      const { service } = serviceOver(store)
      const wrongs = [
        { accountId: 'another-account' },
        { purpose: 'account.delete' },
        { securityEpoch: 8 },
        { sessionBinding: 'another-session' },
      ]
      for (const wrong of wrongs) {
        const bound = binding()
        const token = (await service.issue(bound)).reveal()
        const attempt = await service.consume({ ...bound, ...wrong, token })
        check(attempt.kind === 'rejected', `wrong ${Object.keys(wrong).join()}: ${attempt.kind}`)
        const genuine = await service.consume({ ...bound, token })
        check(genuine.kind === 'rejected', `wrong ${Object.keys(wrong).join()} did not burn the credential`)
      }
    },
  ),
  conformanceCase(
    'step-up.unknown-token',
    'an unknown or malformed token is rejected without burning a genuine credential',
    async ({ store }, check) => {
      const { service } = serviceOver(store)
      const bound = binding()
      const token = (await service.issue(bound)).reveal()
      for (const guess of [randomBytes(32).toString('base64url'), `${token}x`, token.slice(1), '']) {
        const attempt = await service.consume({ ...bound, token: guess })
        check(attempt.kind === 'rejected', `guess answered ${attempt.kind}`)
      }
      const genuine = await service.consume({ ...bound, token })
      check(genuine.kind === 'consumed', 'a wrong guess burned the genuine credential')
    },
  ),
]
