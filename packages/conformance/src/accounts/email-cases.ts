import { at, concurrently, T0, unique } from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { emailAddress, epochOf, verifiedAccount } from './email-fixture.js'
import { type AccountStoreFixture, passwordAccount } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

export const emailCases: readonly Case[] = [
  conformanceCase(
    'accounts.email.add-verify',
    'an added address is unverified and primary when first; verifying it makes it the key of findAccountByVerifiedEmail and findPassword; the epoch does not move',
    async ({ store }, check) => {
      const { accountId, username } = await passwordAccount(store)
      const address = emailAddress()
      check((await store.listEmailAddresses(accountId)).length === 0, 'a new account has addresses')
      const added = await store.addEmailAddress({ accountId, address, now: T0 })
      check(
        added.outcome === 'added' &&
          added.address.address === address &&
          !added.address.verified &&
          added.address.primary &&
          added.address.verifiedAt === null,
        `adding the first address answered ${JSON.stringify(added)}`,
      )
      check(
        (await store.findAccountByVerifiedEmail(address)) === null,
        'an unverified address found an account',
      )
      check(
        (await store.findPassword({ verifiedEmail: address })) === null,
        'an unverified address found a password',
      )
      const again = await store.addEmailAddress({ accountId, address, now: at(1) })
      check(again.outcome === 'exists', `adding it twice answered ${again.outcome}`)
      const verified = await store.verifyEmailAddress({ accountId, address, now: at(2) })
      check(
        verified.outcome === 'verified' &&
          verified.address.verified &&
          verified.address.verifiedAt?.getTime() === at(2).getTime() &&
          verified.securityEpoch === 1,
        `verifying answered ${JSON.stringify(verified)}`,
      )
      const owner = await store.findAccountByVerifiedEmail(address)
      check(owner?.accountId === accountId, 'the verified address does not find its account')
      const password = await store.findPassword({ verifiedEmail: address })
      check(
        password?.accountId === accountId && password.username === username,
        'the verified address does not find the password',
      )
      const twice = await store.verifyEmailAddress({ accountId, address, now: at(3) })
      check(
        twice.outcome === 'verified' && twice.address.verifiedAt?.getTime() === at(2).getTime(),
        'verifying again changed the verification time',
      )
      check((await epochOf(store, accountId)) === 1, 'adding or verifying an address moved the epoch')
      const other = address.replace('Person', 'person')
      check(
        (await store.findAccountByVerifiedEmail(other)) === null,
        'a lookup folded the case of the local part',
      )
      const unknown = await store.addEmailAddress({ accountId: unique('account'), address, now: T0 })
      check(unknown.outcome === 'not-found', `an address for an unknown account answered ${unknown.outcome}`)
      const missing = await store.verifyEmailAddress({ accountId, address: emailAddress(), now: T0 })
      check(missing.outcome === 'not-found', `verifying an address not held answered ${missing.outcome}`)
    },
  ),
  conformanceCase(
    'accounts.email.unverified-shared',
    'several accounts may hold one unverified address; once one verifies it, the others cannot, nor can anyone add it',
    async ({ store }, check) => {
      const address = emailAddress()
      const [first, second, third] = [
        await passwordAccount(store),
        await passwordAccount(store),
        await passwordAccount(store),
      ]
      for (const account of [first, second]) {
        const added = await store.addEmailAddress({ accountId: account.accountId, address, now: T0 })
        check(
          added.outcome === 'added',
          `a second holder of an unverified address was refused: ${added.outcome}`,
        )
      }
      const won = await store.verifyEmailAddress({ accountId: second.accountId, address, now: at(1) })
      check(won.outcome === 'verified', `the first verification answered ${won.outcome}`)
      const lost = await store.verifyEmailAddress({ accountId: first.accountId, address, now: at(2) })
      check(lost.outcome === 'taken', `verifying an address verified elsewhere answered ${lost.outcome}`)
      const held = await store.listEmailAddresses(first.accountId)
      check(
        held.length === 1 && held[0]?.verified === false,
        'the loser lost its unverified copy or has it verified',
      )
      const late = await store.addEmailAddress({ accountId: third.accountId, address, now: at(3) })
      check(
        late.outcome === 'verified-elsewhere',
        `adding an address verified elsewhere answered ${late.outcome}`,
      )
      check(
        (await store.findAccountByVerifiedEmail(address))?.accountId === second.accountId,
        'the address does not find its one owner',
      )
    },
  ),
  conformanceCase(
    'accounts.email.verify-race',
    'eight accounts verifying one address at once (on two instances): exactly one wins, the others are taken',
    async (fixture, check) => {
      for (let round = 0; round < 4; round += 1) {
        const address = emailAddress()
        const accounts = await Promise.all(Array.from({ length: 8 }, () => passwordAccount(fixture.store)))
        for (const { accountId } of accounts) {
          await fixture.store.addEmailAddress({ accountId, address, now: T0 })
        }
        const outcomes = await concurrently(fixture, accounts.length, (store, index) =>
          store.verifyEmailAddress({
            accountId: accounts[index]?.accountId ?? '',
            address,
            now: at(1),
          }),
        )
        const winners = outcomes.filter((outcome) => outcome.outcome === 'verified')
        check(winners.length === 1, `round ${round}: ${winners.length} accounts verified one address`)
        check(
          outcomes.every((outcome) => outcome.outcome === 'verified' || outcome.outcome === 'taken'),
          `round ${round}: outcomes ${outcomes.map((outcome) => outcome.outcome).join()}`,
        )
        const owner = await fixture.store.findAccountByVerifiedEmail(address)
        const winner = outcomes.findIndex((outcome) => outcome.outcome === 'verified')
        check(owner?.accountId === accounts[winner]?.accountId, `round ${round}: the owner is not the winner`)
        let verifiedCopies = 0
        for (const { accountId } of accounts) {
          const list = await fixture.store.listEmailAddresses(accountId)
          verifiedCopies += list.filter((each) => each.verified).length
        }
        check(verifiedCopies === 1, `round ${round}: ${verifiedCopies} accounts hold it verified`)
      }
    },
  ),
  conformanceCase(
    'accounts.email.primary',
    'one primary: only a verified address becomes primary, a change moves the epoch; the primary goes only when it is the last address',
    async ({ store }, check) => {
      const { accountId, address: first } = await verifiedAccount(store)
      const second = emailAddress('Second')
      const added = await store.addEmailAddress({ accountId, address: second, now: at(2) })
      check(added.outcome === 'added' && !added.address.primary, 'a second address became primary')
      const unverified = await store.setPrimaryEmailAddress({ accountId, address: second, now: at(3) })
      check(unverified.outcome === 'unverified', `an unverified primary answered ${unverified.outcome}`)
      const same = await store.setPrimaryEmailAddress({ accountId, address: first, now: at(3) })
      check(same.outcome === 'set' && same.securityEpoch === 1, 'making the primary primary moved the epoch')
      const swapped = await store.verifyEmailAddress({
        accountId,
        address: second,
        now: at(4),
        makePrimary: true,
      })
      check(
        swapped.outcome === 'verified' && swapped.address.primary && swapped.securityEpoch === 2,
        `verifying with makePrimary answered ${JSON.stringify(swapped)}`,
      )
      const list = await store.listEmailAddresses(accountId)
      check(
        list.map((each) => `${each.address}:${each.primary}`).join() === `${second}:true,${first}:false`,
        `the listing is ${list.map((each) => `${each.address}:${each.primary}`).join()}`,
      )
      const back = await store.setPrimaryEmailAddress({ accountId, address: first, now: at(5) })
      check(back.outcome === 'set' && back.securityEpoch === 3, 'a change of primary did not move the epoch')
      const refused = await store.removeEmailAddress({ accountId, address: first, now: at(6) })
      check(refused.outcome === 'primary', `removing the primary of two answered ${refused.outcome}`)
      const removed = await store.removeEmailAddress({ accountId, address: second, now: at(6) })
      check(
        removed.outcome === 'removed' && removed.securityEpoch === 4,
        'removing a verified address did not move the epoch',
      )
      check(
        (await store.findAccountByVerifiedEmail(second)) === null,
        'a removed address still finds the account',
      )
      const last = await store.removeEmailAddress({ accountId, address: first, now: at(7) })
      check(last.outcome === 'removed', `removing the last (primary) address answered ${last.outcome}`)
      check((await store.listEmailAddresses(accountId)).length === 0, 'the account kept an address')
      const none = await store.removeEmailAddress({ accountId, address: first, now: at(8) })
      check(none.outcome === 'not-found', `removing it again answered ${none.outcome}`)
      const notFound = await store.setPrimaryEmailAddress({ accountId, address: first, now: at(8) })
      check(notFound.outcome === 'not-found', `a primary not held answered ${notFound.outcome}`)
      const fresh = emailAddress('Fresh')
      await store.addEmailAddress({ accountId, address: fresh, now: at(9) })
      const unverifiedGone = await store.removeEmailAddress({ accountId, address: fresh, now: at(9) })
      check(
        unverifiedGone.outcome === 'removed' && unverifiedGone.securityEpoch === 5,
        'removing an unverified address moved the epoch',
      )
    },
  ),
]
