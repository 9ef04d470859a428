import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { accountCases } from './account-cases.js'
import { deletionCases } from './deletion-cases.js'
import { emailCases } from './email-cases.js'
import { emailLifecycleCases } from './email-lifecycle-cases.js'
import { epochCases } from './epoch-cases.js'
import type { AccountStoreFactory, AccountStoreFixture } from './fixture.js'
import { methodCases } from './method-cases.js'
import { outboxCases } from './outbox-cases.js'
import { passkeyMethodCases } from './passkey-method-cases.js'
import { passwordCases } from './password-cases.js'
import { signUpCases } from './sign-up-cases.js'

/**
 * The `AccountStore` suite: password sign-up and lookup, taken usernames and their race, single-use
 * invites, password writes (compare-and-swap, rehash), the sign-in methods of one account counted alike
 * by the password side and every provider view, last-method refusal (also racing across two instances),
 * concurrent first sign-ins provisioning exactly one account, deletion removing everything of an account
 * (and refusing while provider tokens are retained), the security epoch moving exactly with the
 * operations that must move it, email addresses (one verified owner under concurrency, unverified ones
 * shared, one primary, the last way in kept, never linked by a provider sign-in), outbox entries written
 * in the change's transaction exactly when it happens, sign-up with its address, code and message in
 * one transaction (all or nothing), and typed invalid-input errors.
 */
export function accountStoreSuite(factory: AccountStoreFactory): ConformanceSuite<AccountStoreFixture> {
  return {
    name: 'AccountStore conformance',
    cases: [
      ...accountCases,
      ...passwordCases,
      ...methodCases,
      ...passkeyMethodCases,
      ...deletionCases,
      ...epochCases,
      ...emailCases,
      ...emailLifecycleCases,
      ...outboxCases,
      ...signUpCases,
    ],
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every `AccountStore` case; throws an `AggregateError` naming each violated invariant. */
export function assertAccountStoreConformance(factory: AccountStoreFactory): Promise<void> {
  return assertSuite(accountStoreSuite(factory))
}
