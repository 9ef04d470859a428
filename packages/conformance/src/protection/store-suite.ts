import { randomBytes } from 'node:crypto'
import { transactions } from '@portcullis/core/oauth'
import { assertSuite, type Check, type ConformanceSuite, conformanceCase } from '../suite/suite.js'
import { bytesForms, encodingsOf, hex, storedText } from './expectations.js'

type OAuthTransaction = transactions.OAuthTransaction
type OAuthTransactionInit = transactions.OAuthTransactionInit
type OAuthTransactionStore = transactions.OAuthTransactionStore

/** What a store factory yields: a fresh, empty store and a window on what it keeps at rest. */
export interface OAuthTransactionStoreSubject {
  readonly store: OAuthTransactionStore
  /**
   * Everything the store keeps at rest (rows, records, serialized values), e.g. `SELECT *` results or
   * `MemoryOAuthTransactionStore#storedForm()`. The suite searches it for the PKCE verifier and nonce.
   */
  inspectStoredForm(): unknown
  dispose?(): Promise<void> | void
}

export type OAuthTransactionStoreFactory = () =>
  | OAuthTransactionStoreSubject
  | Promise<OAuthTransactionStoreSubject>

type Subject = OAuthTransactionStoreSubject
const case_ = conformanceCase<Subject>
const LIFETIME_MS = 600_000

function secret(): string {
  return randomBytes(32).toString('base64url')
}

/** A transaction that started at `createdAt` (a whole second, so any store's timestamps hold it). */
function transaction(createdAt: Date, overrides: Partial<OAuthTransactionInit> = {}): OAuthTransaction {
  return new transactions.OAuthTransaction({
    stateDigest: randomBytes(32),
    bindingDigest: randomBytes(32),
    provider: 'conformance',
    operation: 'login',
    redirectUri: 'https://app.example/auth/oauth/conformance/callback',
    returnTo: '/',
    requestedScopes: ['openid', 'email'],
    pkceVerifier: secret(),
    nonce: secret(),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + LIFETIME_MS),
    ...overrides,
  })
}

function started(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000)
}

function during(tx: OAuthTransaction): Date {
  return new Date(tx.createdAt.getTime() + 1000)
}

const bytes = (value: Uint8Array | null) => (value === null ? null : hex(value))
const time = (value: Date) => value.getTime()

/** Compares every field, digests by bytes and dates by instant; names the first field that differs. */
function checkSame(check: Check, actual: OAuthTransaction | null, expected: OAuthTransaction): void {
  check(actual !== null, 'the exact key missed')
  if (actual === null) return
  const fields: Array<[string, unknown, unknown]> = [
    ['stateDigest', bytes(actual.stateDigest), bytes(expected.stateDigest)],
    ['bindingDigest', bytes(actual.bindingDigest), bytes(expected.bindingDigest)],
    ['sessionBindingDigest', bytes(actual.sessionBindingDigest), bytes(expected.sessionBindingDigest)],
    ['createdAt', time(actual.createdAt), time(expected.createdAt)],
    ['expiresAt', time(actual.expiresAt), time(expected.expiresAt)],
    ['requestedScopes', JSON.stringify(actual.requestedScopes), JSON.stringify(expected.requestedScopes)],
  ]
  const scalars = [
    'provider',
    'operation',
    'redirectUri',
    'returnTo',
    'pkceVerifier',
    'nonce',
    'expectedIssuer',
    'accountId',
    'securityEpoch',
    'providerAccountId',
    'stepUpPurpose',
    'maxAuthenticationAge',
  ] as const
  for (const field of scalars) fields.push([field, actual[field], expected[field]])
  for (const [field, got, want] of fields) check(got === want, `field ${field} was not restored`)
}

const cases = [
  case_(
    'store.exact-match',
    'the exact key returns an equal transaction with its secrets restored',
    async (s, check) => {
      const plain = transaction(started(), { nonce: null, requestedScopes: [] })
      const full = transaction(started(), {
        operation: 'reauthenticate',
        accountId: 'account-1',
        stepUpPurpose: 'delete-account',
        maxAuthenticationAge: 0,
        securityEpoch: 7,
        providerAccountId: 'subject-1',
        expectedIssuer: 'https://idp.example',
        sessionBindingDigest: randomBytes(32),
      })
      await s.store.create(plain)
      await s.store.create(full)
      checkSame(check, await s.store.consume(plain, during(plain)), plain)
      checkSame(check, await s.store.consume(full, during(full)), full)
    },
  ),

  ...(
    [
      [
        'store.wrong-binding',
        'browser-binding digest',
        (tx: OAuthTransaction) => ({ ...key(tx), bindingDigest: randomBytes(32) }),
      ],
      [
        'store.wrong-state',
        'state digest',
        (tx: OAuthTransaction) => ({ ...key(tx), stateDigest: randomBytes(32) }),
      ],
      [
        'store.wrong-provider',
        'provider',
        (tx: OAuthTransaction) => ({ ...key(tx), provider: 'conformance-other' }),
      ],
    ] as const
  ).map(([id, part, miss]) =>
    case_(id, `a lookup with another ${part} misses and does not burn the transaction`, async (s, check) => {
      const tx = transaction(started())
      await s.store.create(tx)
      check(
        (await s.store.consume(miss(tx), during(tx))) === null,
        `a lookup with another ${part} returned a transaction`,
      )
      checkSame(check, await s.store.consume(tx, during(tx)), tx)
    }),
  ),

  case_('store.replay', 'a consumed transaction cannot be consumed again', async (s, check) => {
    const tx = transaction(started())
    await s.store.create(tx)
    check((await s.store.consume(tx, during(tx))) !== null, 'the first consume missed')
    check(
      (await s.store.consume(tx, during(tx))) === null,
      'the second consume returned the transaction again',
    )
  }),

  case_('store.concurrent-consume', 'of 16 concurrent consumes exactly one wins', async (s, check) => {
    const tx = transaction(started())
    await s.store.create(tx)
    const results = await Promise.all(Array.from({ length: 16 }, () => s.store.consume(tx, during(tx))))
    const winners = results.filter((result) => result !== null).length
    check(winners === 1, `${winners} concurrent consumes won`)
  }),

  case_(
    'store.expiry-boundary',
    'a transaction is returned before expiresAt and gone at expiresAt',
    async (s, check) => {
      const before = transaction(started())
      const at = transaction(started())
      const after = transaction(started())
      for (const tx of [before, at, after]) await s.store.create(tx)
      check(
        (await s.store.consume(before, new Date(time(before.expiresAt) - 1))) !== null,
        'missed 1 ms before expiry',
      )
      check((await s.store.consume(at, at.expiresAt)) === null, 'returned a transaction at exactly expiresAt')
      check(
        (await s.store.consume(after, new Date(time(after.expiresAt) + 1000))) === null,
        'returned an expired transaction',
      )
    },
  ),

  case_(
    'store.secrets-at-rest',
    'the stored form holds neither the PKCE verifier nor the nonce',
    async (s, check) => {
      const tx = transaction(started(), { sessionBindingDigest: randomBytes(32) })
      await s.store.create(tx)
      const text = storedText(await s.inspectStoredForm())
      const digestVisible = bytesForms(tx.stateDigest).some((form) => text.includes(form))
      check(
        digestVisible,
        'inspectStoredForm() does not show the stored transaction (its state digest is missing)',
      )
      for (const [name, value] of [
        ['PKCE verifier', tx.pkceVerifier],
        ['nonce', tx.nonce ?? ''],
      ] as const) {
        for (const form of encodingsOf(value))
          check(!text.includes(form), `the ${name} is readable in the stored form`)
      }
    },
  ),

  case_(
    'store.duplicate-key',
    'a second create under an existing key fails and keeps the first',
    async (s, check) => {
      const first = transaction(started())
      const second = transaction(started(), {
        stateDigest: first.stateDigest,
        bindingDigest: first.bindingDigest,
      })
      await s.store.create(first)
      let refused = false
      try {
        await s.store.create(second)
      } catch {
        refused = true
      }
      check(refused, 'the duplicate create succeeded')
      checkSame(check, await s.store.consume(first, during(first)), first)
    },
  ),

  case_(
    'store.shared-binding',
    'transactions sharing a browser binding (tabs) stay independent',
    async (s, check) => {
      const a = transaction(started())
      const b = transaction(started(), { bindingDigest: a.bindingDigest, returnTo: '/settings' })
      await s.store.create(a)
      await s.store.create(b)
      checkSame(check, await s.store.consume(b, during(b)), b)
      checkSame(check, await s.store.consume(a, during(a)), a)
    },
  ),
]

function key(tx: OAuthTransaction): transactions.OAuthTransactionKey {
  return { stateDigest: tx.stateDigest, bindingDigest: tx.bindingDigest, provider: tx.provider }
}

/** The store suite as data, for `describeConformance` (one test per case) or `runSuite`. */
export function oauthTransactionStoreSuite(
  factory: OAuthTransactionStoreFactory,
  name = 'OAuthTransactionStore conformance',
): ConformanceSuite<Subject> {
  return {
    name,
    cases,
    createContext: () => factory(),
    disposeContext: (subject) => subject.dispose?.(),
  }
}

/** Runs every store case; throws an `AggregateError` listing each violated invariant. */
export function assertOAuthTransactionStoreConformance(factory: OAuthTransactionStoreFactory): Promise<void> {
  return assertSuite(oauthTransactionStoreSuite(factory))
}
