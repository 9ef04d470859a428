import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import type { RateLimitStore, RefreshTokenStore, SessionStore } from '@portcullis/core/local-accounts'

/**
 * A store for one case. `peer`, when given, is a second store over the same storage, as another app
 * instance would have it (its own pool): the race cases split their concurrent calls between `store`
 * and `peer`. Stores may share a database with other cases: the suites use unique ids and keys.
 */
export interface StoreFixture<Store> {
  readonly store: Store
  readonly peer?: Store
  dispose?(): Promise<void> | void
}

export interface SessionStoreFixture extends StoreFixture<SessionStore> {
  /**
   * The account store over the same storage, for the `accountEpoch` cases of `sessionStoreSuite`
   * (`getWithAccountEpoch` reads the epoch it keeps).
   */
  readonly accounts?: AccountStore
}
export type RefreshTokenStoreFixture = StoreFixture<RefreshTokenStore>
export type RateLimitStoreFixture = StoreFixture<RateLimitStore>

export type SessionStoreFactory = () => SessionStoreFixture | Promise<SessionStoreFixture>
export type RefreshTokenStoreFactory = () => RefreshTokenStoreFixture | Promise<RefreshTokenStoreFixture>
export type RateLimitStoreFactory = () => RateLimitStoreFixture | Promise<RateLimitStoreFixture>

export const T0 = new Date('2031-03-04T05:06:07.000Z')

/** `T0` plus `milliseconds`. */
export const at = (milliseconds: number): Date => new Date(T0.getTime() + milliseconds)

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE

/** A fresh `digestOpaqueToken`-shaped digest (64 lower-case hex characters). */
export function digest(): string {
  return createHash('sha256').update(randomBytes(32)).digest('hex')
}

/** A fresh session handle (22 base64url characters, as `newOpaqueToken(16)`). */
export function handle(): string {
  return randomBytes(16).toString('base64url')
}

export function unique(prefix: string): string {
  return `${prefix}-${randomUUID()}`
}

/** A fresh normalized username. */
export function username(): string {
  return `user.${randomBytes(9).toString('hex')}`
}

/** A stand-in for an encoded password hash (the stores never parse it). */
export function passwordHash(label = 'hash'): string {
  return `$argon2id$v=19$m=19456,t=2,p=1$${label}$${randomBytes(24).toString('base64')}`
}

/** The stores of a fixture to spread concurrent calls over: `store` and, when given, `peer`. */
export function instances<Store>(fixture: StoreFixture<Store>): readonly Store[] {
  return fixture.peer === undefined ? [fixture.store] : [fixture.store, fixture.peer]
}

/** Runs `count` calls concurrently, alternating between the fixture's instances. */
export function concurrently<Store, T>(
  fixture: StoreFixture<Store>,
  count: number,
  call: (store: Store, index: number) => Promise<T>,
): Promise<T[]> {
  const stores = instances(fixture)
  return Promise.all(
    Array.from({ length: count }, (_, index) => call(stores[index % stores.length] as Store, index)),
  )
}

export { expectCode, rejectionCode } from '../suite/rejections.js'

/** Lets a case pass values of the wrong type on purpose. */
export function loose<T>(value: unknown): T {
  return value as T
}

/** Blank, padded, control-character and wrongly typed values for an id field. */
export const BAD_IDS: readonly unknown[] = [
  '',
  '   ',
  ' padded',
  'line\nbreak',
  'nul\u0000',
  undefined,
  42,
  null,
]

/** Malformed digests: raw tokens, upper case, base64url, too short, wrong types. */
export const BAD_DIGESTS: readonly unknown[] = [
  '',
  'not-a-digest',
  'A'.repeat(64),
  randomBytes(32).toString('base64url'),
  'a'.repeat(63),
  undefined,
  64,
]

/** Invalid dates: not a Date, an invalid Date, an ISO string. */
export const BAD_DATES: readonly unknown[] = [new Date(Number.NaN), T0.toISOString(), T0.getTime(), undefined]

export const sameTime = (a: Date | undefined, b: Date | undefined): boolean =>
  a instanceof Date && b instanceof Date && a.getTime() === b.getTime()

export const label = (value: unknown): string => {
  if (value instanceof Date) return `Date(${value.getTime()})`
  return JSON.stringify(value) ?? String(value)
}
