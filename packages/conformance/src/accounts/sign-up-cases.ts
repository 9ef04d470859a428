import type { AccountStore } from '@portcullis/core/accounts'
import type { NewOneTimeCode, OneTimeCodeStore } from '@portcullis/core/codes'
import type { MailOutboxStore, OutboxEntry } from '@portcullis/core/mail'
import { newCode, outboxEntry, present } from '../codes/fixture.js'
import { at, digest, expectCode, passwordHash, T0, unique, username } from '../local-accounts/fixture.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type AccountStoreFixture, passwordAccount } from './fixture.js'
import { written } from './outbox-cases.js'

// Sign-up with verification in one transaction: `createAccount` with `emailAddress`, `code` and
// `outbox` writes the account, its unverified primary address, the code and its mail together, or,
// whatever refuses or fails, none of them.

type Case = ConformanceCase<AccountStoreFixture>

interface SignUp {
  readonly accountId: string
  readonly address: string
  readonly code: NewOneTimeCode
  readonly entry: OutboxEntry
}

function signUp(accountId = unique('account'), address = `${unique('new')}@conformance.example`): SignUp {
  const code = newCode(accountId, {
    purpose: 'email-verification',
    address,
    createdAt: T0,
    expiresAt: at(86_400_000),
  })
  return { accountId, address, code, entry: { ...outboxEntry(accountId), kind: 'verification' } }
}

function request(attempt: SignUp, overrides: Record<string, unknown> = {}) {
  return {
    accountId: attempt.accountId,
    username: username(),
    passwordHash: passwordHash(),
    now: T0,
    emailAddress: attempt.address,
    code: attempt.code,
    outbox: [attempt.entry],
    ...overrides,
  }
}

/** Checks that nothing of `attempt` was written: no account, address, code or message. */
async function nothingOf(
  what: string,
  attempt: SignUp,
  stores: { store: AccountStore; codes: OneTimeCodeStore; outbox: MailOutboxStore },
  check: Check,
): Promise<void> {
  check((await stores.store.getAccount(attempt.accountId)) === null, `${what}: the account was created`)
  check(
    (await stores.store.listEmailAddresses(attempt.accountId)).length === 0,
    `${what}: the address was stored`,
  )
  const consumed = await stores.codes.consume(present(attempt.code, { now: at(1000) }))
  check(consumed.outcome === 'not-found', `${what}: the code was stored (${consumed.outcome})`)
  const mail = await written(stores.outbox, [attempt.entry.id])
  check(!mail.has(attempt.entry.id), `${what}: the message was written`)
}

export const signUpCases: readonly Case[] = [
  conformanceCase(
    'accounts.sign-up.atomic',
    'createAccount with emailAddress, code and outbox writes the account, its unverified primary address, the code and its message together; a taken username, an invalid invite, an address another account verified, a code bound elsewhere, a stored code id or a stored message id writes none of them',
    async (fixture, check) => {
      const { store, codes, outbox } = fixture
      if (codes === undefined || outbox === undefined) {
        // A store that cannot write codes in its own transaction must refuse them, creating nothing.
        if (codes !== undefined || outbox !== undefined) return
        const attempt = signUp()
        let refused = false
        try {
          await store.createAccount(request(attempt, { outbox: undefined }))
        } catch {
          refused = true
        }
        check(
          refused,
          'a store without code storage accepted a sign-up that carries a code (it would be lost)',
        )
        check((await store.getAccount(attempt.accountId)) === null, 'the refused sign-up created the account')
        return
      }
      const stores = { store, codes, outbox }
      const made = signUp()
      const created = await store.createAccount(request(made))
      check(created.outcome === 'created', `a sign-up with an address and a code answered ${created.outcome}`)
      const addresses = await store.listEmailAddresses(made.accountId)
      check(
        addresses.length === 1 &&
          addresses[0]?.address === made.address &&
          addresses[0]?.primary === true &&
          addresses[0]?.verified === false,
        'the sign-up did not store its address unverified and primary',
      )
      const mail = await written(outbox, [made.entry.id])
      check(mail.has(made.entry.id), 'the sign-up did not write its message')
      const consumed = await codes.consume(present(made.code, { now: at(1000) }))
      check(
        consumed.outcome === 'consumed' && consumed.code.accountId === made.accountId,
        `the sign-up's code was not stored for its account (${consumed.outcome})`,
      )

      const { username: taken } = await passwordAccount(store)
      const nameTaken = signUp()
      const outcome = await store.createAccount(request(nameTaken, { username: taken }))
      check(outcome.outcome === 'username-taken', `a taken username answered ${outcome.outcome}`)
      await nothingOf('a taken username', nameTaken, stores, check)

      const badInvite = signUp()
      const invited = await store.createAccount(request(badInvite, { invite: { digest: digest() } }))
      check(invited.outcome === 'invite-invalid', `an unknown invite answered ${invited.outcome}`)
      await nothingOf('an unknown invite', badInvite, stores, check)

      const owner = await passwordAccount(store)
      const verified = `${unique('owned')}@conformance.example`
      await store.addEmailAddress({ accountId: owner.accountId, address: verified, now: T0 })
      await store.verifyEmailAddress({ accountId: owner.accountId, address: verified, now: T0 })
      const addressTaken = signUp(unique('account'), verified)
      const answer = await store.createAccount(request(addressTaken))
      check(answer.outcome === 'address-taken', `an address verified elsewhere answered ${answer.outcome}`)
      await nothingOf('an address verified elsewhere', addressTaken, stores, check)
      // An unverified address blocks nobody: a second sign-up with the first one's address succeeds.
      const shared = signUp(unique('account'), made.address)
      const again = await store.createAccount(request(shared))
      check(
        again.outcome === 'created',
        `an address another account holds unverified answered ${again.outcome}`,
      )
      await written(outbox, [shared.entry.id])

      const elsewhere = signUp()
      await expectCode(
        check,
        store.createAccount(request(elsewhere, { code: { ...elsewhere.code, accountId: owner.accountId } })),
        'local.invalid_input',
        'a code bound to another account',
      )
      await nothingOf('a code bound to another account', elsewhere, stores, check)
      const noAddress = signUp()
      await expectCode(
        check,
        store.createAccount(request(noAddress, { emailAddress: undefined })),
        'local.invalid_input',
        'a code without the address it is bound to',
      )
      await nothingOf('a code without its address', noAddress, stores, check)

      const stored = signUp()
      await codes.issue({ code: { ...stored.code, accountId: owner.accountId }, supersede: false })
      await expectCode(
        check,
        store.createAccount(request(stored)),
        'codes.duplicate',
        'a code whose id is stored',
      )
      check((await store.getAccount(stored.accountId)) === null, 'a stored code id: the account was created')
      check(
        (await store.listEmailAddresses(stored.accountId)).length === 0,
        'a stored code id: the address was stored',
      )
      check(
        !(await written(outbox, [stored.entry.id])).has(stored.entry.id),
        'a stored code id: the message was written',
      )

      const duplicateMail = signUp()
      await outbox.enqueue([duplicateMail.entry])
      await expectCode(
        check,
        store.createAccount(request(duplicateMail)),
        'mail.duplicate_outbox_entry',
        'a message whose id is stored',
      )
      check(
        (await store.getAccount(duplicateMail.accountId)) === null,
        'a stored message id: the account was created',
      )
      const left = await codes.consume(present(duplicateMail.code, { now: at(1000) }))
      check(left.outcome === 'not-found', `a stored message id: the code was stored (${left.outcome})`)
      await written(outbox, [duplicateMail.entry.id])
    },
  ),
]
