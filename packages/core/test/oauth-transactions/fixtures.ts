import { randomBytes } from 'node:crypto'
import {
  MemoryOAuthTransactionStore,
  OAuthRedirectPolicy,
  OAuthTransaction,
  type OAuthTransactionInit,
  OAuthTransactionService,
  type OAuthTransactionStore,
} from '../../src/oauth/transactions/index.js'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '../../src/protection/index.js'

export const T0 = new Date('2030-01-01T00:00:00.000Z')
export const CALLBACK = 'https://app.example/auth/oauth/acme/callback'

export function newProtector(version = 'v1'): AESGCMOAuthTransactionProtector {
  return new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey(version, randomBytes(32)),
  })
}

export function secret43(): string {
  return randomBytes(32).toString('base64url')
}

export function newTransaction(overrides: Partial<OAuthTransactionInit> = {}): OAuthTransaction {
  return new OAuthTransaction({
    stateDigest: randomBytes(32),
    bindingDigest: randomBytes(32),
    provider: 'acme',
    operation: 'login',
    redirectUri: CALLBACK,
    returnTo: '/',
    requestedScopes: ['openid', 'email'],
    pkceVerifier: secret43(),
    nonce: secret43(),
    createdAt: T0,
    expiresAt: new Date(T0.getTime() + 600_000),
    ...overrides,
  })
}

/** A manually advanced clock. */
export class ManualClock {
  #now: number
  constructor(start: Date = T0) {
    this.#now = start.getTime()
  }
  readonly now = (): Date => new Date(this.#now)
  advance(ms: number): void {
    this.#now += ms
  }
}

/** Wraps a real store and counts the calls that reach it. */
export class CountingStore implements OAuthTransactionStore {
  creates = 0
  consumes = 0
  constructor(readonly inner: OAuthTransactionStore) {}
  create(transaction: OAuthTransaction): Promise<void> {
    this.creates++
    return this.inner.create(transaction)
  }
  consume(...args: Parameters<OAuthTransactionStore['consume']>): Promise<OAuthTransaction | null> {
    this.consumes++
    return this.inner.consume(...args)
  }
}

export function newService(
  options: {
    store?: OAuthTransactionStore
    clock?: ManualClock
    randomBytes?: (size: number) => Uint8Array
  } = {},
) {
  const clock = options.clock ?? new ManualClock()
  const store = new CountingStore(
    options.store ?? new MemoryOAuthTransactionStore({ protector: newProtector(), clock: clock.now }),
  )
  const redirects = new OAuthRedirectPolicy({
    callbackUris: { acme: [CALLBACK], other: ['https://app.example/auth/oauth/other/callback'] },
    returnTo: ['/', '/settings'],
  })
  const service = new OAuthTransactionService({
    store,
    pepper: randomBytes(32),
    redirects,
    clock: clock.now,
    ...(options.randomBytes === undefined ? {} : { randomBytes: options.randomBytes }),
  })
  return { service, store, clock, redirects }
}
