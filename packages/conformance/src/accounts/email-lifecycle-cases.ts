// The email-address cases of the AccountStore suite, part two: the life of an address (the last way in,
// the per-account limit, deletion, never linked by a provider sign-in, typed bad input).
import { MAX_EMAIL_ADDRESSES_PER_ACCOUNT } from '@portcullis/core/accounts'
import { at, expectCode, loose, T0 } from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { emailAddress, epochOf, verifiedAccount } from './email-fixture.js'
import { type AccountStoreFixture, GRANT, identityOf, passwordAccount, providerView } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

export const emailLifecycleCases: readonly Case[] = [
  conformanceCase(
    'accounts.email.last-method',
    'with email-only sign-in, the last verified address of a password-only account is its last way in; a username or another method lets it go',
    async (fixture, check) => {
      const { store } = fixture
      const { accountId, address } = await verifiedAccount(store)
      const emailOnly = ['email'] as const
      const refused = await store.removeEmailAddress({
        accountId,
        address,
        now: at(2),
        signInWith: emailOnly,
      })
      check(refused.outcome === 'final-method', `removing the only way in answered ${refused.outcome}`)
      check((await store.listEmailAddresses(accountId)).length === 1, 'the refused removal removed it')
      check((await epochOf(store, accountId)) === 1, 'a refused removal moved the epoch')
      const unverified = emailAddress('Pending')
      await store.addEmailAddress({ accountId, address: unverified, now: at(2) })
      const pending = await store.removeEmailAddress({
        accountId,
        address: unverified,
        now: at(3),
        signInWith: emailOnly,
      })
      check(pending.outcome === 'removed', `an unverified address was kept as a way in: ${pending.outcome}`)
      const view = providerView(fixture)
      await view.link({ accountId, identity: identityOf(view), grant: GRANT, now: at(3) })
      const withIdentity = await store.removeEmailAddress({
        accountId,
        address,
        now: at(4),
        signInWith: emailOnly,
      })
      check(
        withIdentity.outcome === 'removed',
        `with an identity left the removal answered ${withIdentity.outcome}`,
      )
      const other = await verifiedAccount(store)
      const byUsername = await store.removeEmailAddress({
        accountId: other.accountId,
        address: other.address,
        now: at(2),
        signInWith: ['username', 'email'],
      })
      check(
        byUsername.outcome === 'removed',
        `with username sign-in the removal answered ${byUsername.outcome}`,
      )
    },
  ),
  conformanceCase(
    'accounts.email.limit',
    `an account holds at most ${MAX_EMAIL_ADDRESSES_PER_ACCOUNT} addresses`,
    async ({ store }, check) => {
      const { accountId } = await passwordAccount(store)
      for (let index = 0; index < MAX_EMAIL_ADDRESSES_PER_ACCOUNT; index += 1) {
        const added = await store.addEmailAddress({ accountId, address: emailAddress(), now: at(index) })
        check(added.outcome === 'added', `address ${index} answered ${added.outcome}`)
      }
      const over = await store.addEmailAddress({ accountId, address: emailAddress(), now: at(99) })
      check(over.outcome === 'too-many', `one more address answered ${over.outcome}`)
      const list = await store.listEmailAddresses(accountId)
      check(
        list.length === MAX_EMAIL_ADDRESSES_PER_ACCOUNT && list.filter((each) => each.primary).length === 1,
        'not exactly one primary among the addresses',
      )
    },
  ),
  conformanceCase(
    'accounts.email.deletion',
    'deleting an account removes its addresses and frees its verified address for another account',
    async ({ store }, check) => {
      const { accountId, address } = await verifiedAccount(store)
      const deleted = await store.deleteAccount({ accountId, now: at(2) })
      check(deleted.outcome === 'deleted', `deleting answered ${deleted.outcome}`)
      check((await store.listEmailAddresses(accountId)).length === 0, 'the deleted account kept addresses')
      check((await store.findAccountByVerifiedEmail(address)) === null, 'the address still finds the account')
      const next = await verifiedAccount(store, address)
      check(
        (await store.findAccountByVerifiedEmail(address))?.accountId === next.accountId,
        'the freed address cannot be verified again',
      )
    },
  ),
  conformanceCase(
    'accounts.email.provider-never-links',
    'a provider sign-in whose verified email equals an account’s verified address provisions a new account and links nothing by email',
    async (fixture, check) => {
      const { store } = fixture
      const { accountId, address } = await verifiedAccount(store)
      const view = providerView(fixture)
      const login = await view.login({
        identity: { ...identityOf(view), email: address, emailVerified: true },
        grant: GRANT,
        provisionUnknown: true,
        now: at(2),
      })
      check(
        login.provisioned && login.link.accountId !== accountId,
        'the provider sign-in joined the account',
      )
      check(
        login.link.email === address && login.link.emailVerified === true,
        `the link recorded ${login.link.email}/${login.link.emailVerified} of the provider's email`,
      )
      const again = await view.login({
        identity: {
          provider: view.provider,
          issuer: login.link.issuer,
          subject: login.link.subject,
          email: 'Not An Address',
          emailVerified: true,
        },
        grant: GRANT,
        provisionUnknown: false,
        now: at(3),
      })
      check(
        again.link.providerAccountId === login.link.providerAccountId &&
          again.link.email === null &&
          again.link.emailVerified === null,
        'a provider email that does not normalize was recorded',
      )
      check(
        (await store.listSignInMethods(accountId)).every((method) => method.kind !== 'identity'),
        'the address linked the identity to its account',
      )
      check(
        (await store.listEmailAddresses(login.link.accountId)).length === 0,
        'the provisioned account got the provider email as an address',
      )
      check(
        (await store.findAccountByVerifiedEmail(address))?.accountId === accountId,
        'the address changed owner',
      )
      await expectCode(
        check,
        view.login({
          identity: { ...identityOf(view), email: address, emailVerified: true },
          grant: GRANT,
          provisionUnknown: false,
          now: at(3),
        }),
        'oauth.account.unknown_identity',
        'a sign-in of an unlinked identity with a known verified email',
      )
    },
  ),
  conformanceCase(
    'accounts.email.invalid-input',
    'addresses that are not normalized and malformed requests are typed errors and write nothing',
    async ({ store }, check) => {
      const { accountId } = await passwordAccount(store)
      const address = emailAddress()
      for (const bad of [
        address.replace('mail.conformance', 'Mail.Conformance'),
        ` ${address}`,
        'no-at.example',
        `${address}\r\nBcc: x@evil.example`,
        'jose\u0301@mail.conformance.example',
        42,
        undefined,
      ]) {
        await expectCode(
          check,
          store.addEmailAddress({ accountId, address: loose(bad), now: T0 }),
          'email.invalid_address',
          `adding ${JSON.stringify(bad)}`,
        )
        await expectCode(
          check,
          store.findAccountByVerifiedEmail(loose(bad)),
          'email.invalid_address',
          `looking up ${JSON.stringify(bad)}`,
        )
      }
      await expectCode(
        check,
        store.addEmailAddress({ accountId: ' padded', address, now: T0 }),
        'local.invalid_input',
        'a padded account id',
      )
      await expectCode(
        check,
        store.verifyEmailAddress({ accountId, address, now: T0, makePrimary: loose('yes') }),
        'local.invalid_input',
        'a non-boolean makePrimary',
      )
      await expectCode(
        check,
        store.removeEmailAddress({ accountId, address, now: T0, signInWith: loose(['phone']) }),
        'local.invalid_input',
        'an unknown sign-in identifier',
      )
      await expectCode(
        check,
        store.findPassword(loose({ username: 'someone', verifiedEmail: address })),
        'local.invalid_input',
        'a password lookup by two keys',
      )
      check((await store.listEmailAddresses(accountId)).length === 0, 'refused input wrote an address')
    },
  ),
]
