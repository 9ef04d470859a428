import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { at, codeOf, type PasskeyStoreFixture, passkey, samePasskey, T0 } from './fixture.js'

type Case = ConformanceCase<PasskeyStoreFixture>

export const passkeyCases: readonly Case[] = [
  conformanceCase(
    'passkey.round-trip',
    'a passkey reads back exactly by credential id and in its own account listing only; a duplicate id changes nothing',
    async ({ store }, check) => {
      const first = passkey()
      const second = passkey({
        accountId: first.accountId,
        createdAt: at(1000),
        lastUsedAt: at(5),
        name: 'Phone',
      })
      const other = passkey()
      for (const saved of [second, first, other])
        check((await store.addPasskey(saved)) === 'added', 'not added')
      check(samePasskey(await store.findPasskey(first.credentialId), first), 'the stored passkey differs')
      const listed = await store.listPasskeys(first.accountId)
      check(listed.length === 2, `the account lists ${listed.length} passkeys`)
      check(
        samePasskey(listed[0], first) && samePasskey(listed[1], second),
        'the listing is not oldest first',
      )
      const impostor = passkey({ credentialId: first.credentialId, accountId: other.accountId })
      check((await store.addPasskey(impostor)) === 'duplicate', 'a duplicate credential id was added')
      check(
        samePasskey(await store.findPasskey(first.credentialId), first),
        'the duplicate replaced the passkey',
      )
      check((await store.findPasskey(passkey().credentialId)) === null, 'an unknown id found a passkey')
    },
  ),
  conformanceCase(
    'passkey.counter-compare-and-swap',
    'a use moves the counter only from the expected value, and of 20 concurrent uses from one value exactly one wins',
    async ({ store }, check) => {
      const saved = passkey({ counter: 5, backedUp: false })
      await store.addPasskey(saved)
      const use = (expectedCounter: number, counter: number) =>
        store.recordPasskeyUse({
          credentialId: saved.credentialId,
          expectedCounter,
          counter,
          backedUp: true,
          now: at(60_000),
        })
      check(!(await use(4, 9)), 'a stale expected counter was accepted')
      check(await use(5, 6), 'the expected counter was refused')
      const stored = await store.findPasskey(saved.credentialId)
      check(
        stored?.counter === 6 && stored.backedUp && stored.lastUsedAt?.getTime() === at(60_000).getTime(),
        'the use was not recorded',
      )
      const results = await Promise.all(Array.from({ length: 20 }, (_, index) => use(6, 7 + index)))
      check(results.filter(Boolean).length === 1, `${results.filter(Boolean).length} concurrent uses won`)
    },
  ),
  conformanceCase(
    'passkey.zero-counter',
    'an authenticator without a counter (0 to 0) records each use',
    async ({ store }, check) => {
      const saved = passkey({ counter: 0 })
      await store.addPasskey(saved)
      for (const minute of [1, 2]) {
        const used = await store.recordPasskeyUse({
          credentialId: saved.credentialId,
          expectedCounter: 0,
          counter: 0,
          backedUp: true,
          now: at(minute * 60_000),
        })
        check(used, `use ${minute} of a counterless passkey was refused`)
      }
    },
  ),
  conformanceCase(
    'passkey.suspended',
    'a suspended passkey keeps its suspension time and never records a use',
    async ({ store }, check) => {
      const saved = passkey()
      await store.addPasskey(saved)
      check(await store.suspendPasskey(saved.credentialId, at(10)), 'suspend answered false')
      await store.suspendPasskey(saved.credentialId, at(20))
      check(
        (await store.findPasskey(saved.credentialId))?.suspendedAt?.getTime() === at(10).getTime(),
        'suspendedAt moved',
      )
      const used = await store.recordPasskeyUse({
        credentialId: saved.credentialId,
        expectedCounter: saved.counter,
        counter: saved.counter + 1,
        backedUp: true,
        now: at(30),
      })
      check(!used, 'a suspended passkey recorded a use')
      check(!(await store.suspendPasskey(passkey().credentialId, T0)), 'an unknown passkey was suspended')
    },
  ),
  conformanceCase(
    'passkey.owner-only',
    'only the owning account renames or removes a passkey',
    async ({ store }, check) => {
      const saved = passkey()
      const stranger = passkey()
      await store.addPasskey(saved)
      const mine = { accountId: saved.accountId, credentialId: saved.credentialId }
      const theirs = { accountId: stranger.accountId, credentialId: saved.credentialId }
      check(!(await store.renamePasskey({ ...theirs, name: 'Mine now' })), 'another account renamed it')
      check((await store.removePasskey(theirs)) === 'not-found', 'another account removed it')
      check(samePasskey(await store.findPasskey(saved.credentialId), saved), 'a refused call changed it')
      check(await store.renamePasskey({ ...mine, name: 'Desk key' }), 'the owner could not rename it')
      check((await store.findPasskey(saved.credentialId))?.name === 'Desk key', 'the name did not change')
      check((await store.removePasskey(mine)) === 'removed', 'the owner could not remove it')
      check((await store.removePasskey(mine)) === 'not-found', 'a removed passkey was removed again')
      check((await store.findPasskey(saved.credentialId)) === null, 'the removed passkey is still found')
    },
  ),
  conformanceCase(
    'passkey.input',
    'malformed input is passkey.invalid_input and writes nothing',
    async ({ store }, check) => {
      const saved = passkey()
      const bad: [string, () => Promise<unknown>][] = [
        ['short credential id', () => store.addPasskey({ ...saved, credentialId: 'abc' })],
        ['padded account', () => store.addPasskey({ ...saved, accountId: ` ${saved.accountId}` })],
        ['empty public key', () => store.addPasskey({ ...saved, publicKey: new Uint8Array() })],
        ['control character in name', () => store.addPasskey({ ...saved, name: 'a\u0007b' })],
        [
          'counter going back',
          () =>
            store.recordPasskeyUse({
              credentialId: saved.credentialId,
              expectedCounter: 5,
              counter: 4,
              backedUp: true,
              now: T0,
            }),
        ],
        ['invalid date', () => store.suspendPasskey(saved.credentialId, new Date(Number.NaN))],
      ]
      for (const [name, call] of bad) {
        const code = await codeOf(call)
        check(code === 'passkey.invalid_input', `${name}: ${code}`)
      }
      check((await store.findPasskey(saved.credentialId)) === null, 'a refused call stored the passkey')
    },
  ),
]
