import { randomBytes, randomUUID } from 'node:crypto'
import { serializeProtectedEnvelope } from '@portcullis/core/protection'
import type { StaleTotpSecret, TotpSecretResealing, TotpStore } from '@portcullis/core/totp'
import type { ConformanceCase } from '../suite/suite.js'
import { conformanceCase } from '../suite/suite.js'
import { account, codeOf, digests, sameEnrollment, T0 } from './fixture.js'

/** A store for one case: the TOTP store and its re-sealing port (one object, as the stores ship it). */
export interface TotpResealingFixture {
  readonly store: TotpStore & TotpSecretResealing
  dispose?(): Promise<void> | void
}

export type TotpResealingFactory = () => TotpResealingFixture | Promise<TotpResealingFixture>

type Case = ConformanceCase<TotpResealingFixture>

/** A key version label no other case uses, so rows of other cases never look current. */
const keyVersion = (): string => `k-${randomUUID().slice(0, 8)}`

const sealedUnder = (version: string): string =>
  serializeProtectedEnvelope({ keyVersion: version, ciphertext: randomBytes(48) })

async function enabledUnder(store: TotpStore, accountId: string, version: string): Promise<string> {
  const secret = sealedUnder(version)
  await store.savePendingTotp({ accountId, sealedSecret: secret, now: T0 })
  const enabled = await store.enableTotp({
    accountId,
    sealedSecret: secret,
    step: 1000,
    recoveryCodeDigests: digests(3),
    now: new Date(T0.getTime() + 1000),
  })
  if (!enabled) throw new Error('enableTotp refused a fresh pending enrollment')
  return secret
}

/** Pages through the whole listing; throws on a batch over the limit or a cursor that does not advance. */
async function listAll(
  store: TotpSecretResealing,
  activeKeyVersion: string,
  limit: number,
): Promise<{ readonly listed: StaleTotpSecret[]; readonly repeated: boolean; readonly oversized: boolean }> {
  const listed: StaleTotpSecret[] = []
  const seen = new Set<string>()
  let repeated = false
  let oversized = false
  let afterAccountId: string | undefined
  for (let pages = 0; pages < 10_000; pages += 1) {
    const batch = await store.listStaleTotpSecrets({
      activeKeyVersion,
      limit,
      ...(afterAccountId === undefined ? {} : { afterAccountId }),
    })
    if (batch.length > limit) oversized = true
    for (const stale of batch) {
      if (seen.has(stale.accountId)) repeated = true
      seen.add(stale.accountId)
      listed.push(stale)
    }
    if (batch.length < limit || repeated || oversized) break
    afterAccountId = batch.at(-1)?.accountId
  }
  return { listed, repeated, oversized }
}

export const resealingCases: readonly Case[] = [
  conformanceCase(
    'totp-reseal.lists-stale',
    'paging lists every pending and enabled secret not under the active key exactly once, as stored, and no current one',
    async ({ store }, check) => {
      const [old, active] = [keyVersion(), keyVersion()]
      const [pending, enabled, current] = [account(), account(), account()]
      const pendingSecret = sealedUnder(old)
      await store.savePendingTotp({ accountId: pending, sealedSecret: pendingSecret, now: T0 })
      const enabledSecret = await enabledUnder(store, enabled, old)
      await enabledUnder(store, current, active)
      for (const limit of [1000, 2]) {
        const { listed, repeated, oversized } = await listAll(store, active, limit)
        check(!oversized, `a batch of limit ${limit} held more`)
        check(!repeated, `an enrollment was listed twice (limit ${limit})`)
        const of = (id: string) => listed.filter((stale) => stale.accountId === id)
        check(
          of(pending)[0]?.sealedSecret === pendingSecret,
          `the pending secret was not listed as stored (limit ${limit})`,
        )
        check(
          of(enabled)[0]?.sealedSecret === enabledSecret,
          `the enabled secret was not listed as stored (limit ${limit})`,
        )
        check(of(current).length === 0, 'a secret under the active key was listed')
      }
      const underOld = await listAll(store, old, 1000)
      check(
        underOld.listed.some((stale) => stale.accountId === current) &&
          !underOld.listed.some((stale) => stale.accountId === enabled),
        'the listing did not follow the active key version it was given',
      )
    },
  ),

  conformanceCase(
    'totp-reseal.compare-and-swap',
    'a rewrite replaces only the listed secret, keeps status, dates, last used step and recovery codes, and a stale expectation writes nothing',
    async ({ store }, check) => {
      const [old, active] = [keyVersion(), keyVersion()]
      const accountId = account()
      const listedSecret = await enabledUnder(store, accountId, old)
      const before = await store.getTotpEnrollment(accountId)
      const next = sealedUnder(active)
      check(
        await store.resealTotpSecret({ accountId, expected: listedSecret, sealedSecret: next }),
        'the rewrite of the listed secret was refused',
      )
      if (before === null) return check(false, 'the enabled enrollment is missing')
      const after = await store.getTotpEnrollment(accountId)
      check(
        sameEnrollment(after, { ...before, sealedSecret: next }),
        'the rewrite changed more than the secret',
      )
      check((await store.countRecoveryCodes(accountId)) === 3, 'the rewrite touched the recovery codes')
      check(
        !(await store.resealTotpSecret({
          accountId,
          expected: listedSecret,
          sealedSecret: sealedUnder(active),
        })),
        'a rewrite expecting a secret no longer stored succeeded',
      )
      check((await store.getTotpEnrollment(accountId))?.sealedSecret === next, 'a refused rewrite wrote')
      check(
        await store.useTotpStep({ accountId, step: 1001 }),
        'the re-sealed enrollment no longer uses steps',
      )
      const pending = account()
      const pendingSecret = sealedUnder(old)
      await store.savePendingTotp({ accountId: pending, sealedSecret: pendingSecret, now: T0 })
      const resealed = sealedUnder(active)
      check(
        await store.resealTotpSecret({ accountId: pending, expected: pendingSecret, sealedSecret: resealed }),
        'a pending secret was not rewritten',
      )
      const stored = await store.getTotpEnrollment(pending)
      check(
        stored?.status === 'pending' && stored.sealedSecret === resealed,
        'the pending enrollment differs',
      )
    },
  ),

  conformanceCase(
    'totp-reseal.no-resurrection',
    'a rewrite after the enrollment was removed, or removed and started again, writes nothing and brings nothing back',
    async ({ store }, check) => {
      const [old, active] = [keyVersion(), keyVersion()]
      const [removed, reenrolled, other] = [account(), account(), account()]
      const removedSecret = await enabledUnder(store, removed, old)
      const firstSecret = await enabledUnder(store, reenrolled, old)
      await enabledUnder(store, other, old)
      await store.removeTotp(removed)
      await store.removeTotp(reenrolled)
      const fresh = sealedUnder(active)
      await store.savePendingTotp({ accountId: reenrolled, sealedSecret: fresh, now: T0 })
      check(
        !(await store.resealTotpSecret({
          accountId: removed,
          expected: removedSecret,
          sealedSecret: sealedUnder(active),
        })),
        'a rewrite of a removed enrollment succeeded',
      )
      check((await store.getTotpEnrollment(removed)) === null, 'a removed enrollment came back')
      check(
        !(await store.resealTotpSecret({
          accountId: reenrolled,
          expected: firstSecret,
          sealedSecret: sealedUnder(active),
        })),
        'a rewrite overwrote a new enrollment',
      )
      const current = await store.getTotpEnrollment(reenrolled)
      check(current?.status === 'pending' && current.sealedSecret === fresh, 'the new enrollment changed')
      check(
        !(await store.resealTotpSecret({
          accountId: other,
          expected: firstSecret,
          sealedSecret: sealedUnder(active),
        })),
        "a rewrite matched another account's secret",
      )
    },
  ),

  conformanceCase(
    'totp-reseal.input',
    'malformed listing and rewrite requests are refused with totp.invalid_input',
    async ({ store }, check) => {
      const active = keyVersion()
      const bad: [string, Promise<unknown>][] = [
        ['limit 0', store.listStaleTotpSecrets({ activeKeyVersion: active, limit: 0 })],
        ['limit 1001', store.listStaleTotpSecrets({ activeKeyVersion: active, limit: 1001 })],
        ['a blank key version', store.listStaleTotpSecrets({ activeKeyVersion: '', limit: 10 })],
        [
          'a blank cursor',
          store.listStaleTotpSecrets({ activeKeyVersion: active, afterAccountId: ' ', limit: 10 }),
        ],
        [
          'a plaintext secret',
          store.resealTotpSecret({
            accountId: account(),
            expected: sealedUnder(active),
            sealedSecret: 'JBSWY3DPEHPK3PXP',
          }),
        ],
        [
          'a blank account',
          store.resealTotpSecret({
            accountId: '',
            expected: sealedUnder(active),
            sealedSecret: sealedUnder(active),
          }),
        ],
      ]
      for (const [what, attempt] of bad) {
        check((await codeOf(attempt)) === 'totp.invalid_input', `${what} was not refused as invalid input`)
      }
    },
  ),
]
