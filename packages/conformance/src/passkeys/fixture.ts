import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { MailOutboxStore } from '@portcullis/core/mail'
import type {
  PasskeyChallenge,
  PasskeyChallengeStore,
  PasskeyCredential,
  PasskeyStore,
} from '@portcullis/core/passkeys'

/** A passkey store for one case; stores may share a database, the suite uses fresh ids. */
export interface PasskeyStoreFixture {
  readonly store: PasskeyStore
  /**
   * The outbox the store writes the `outbox` entries of adding and removing a passkey into (same
   * storage, same transaction). Without it the store must refuse changes that carry entries.
   */
  readonly outbox?: MailOutboxStore
  dispose?(): Promise<void> | void
}

/** A challenge store for one case. */
export interface PasskeyChallengeStoreFixture {
  readonly store: PasskeyChallengeStore
  dispose?(): Promise<void> | void
}

export type PasskeyStoreFactory = () => PasskeyStoreFixture | Promise<PasskeyStoreFixture>
export type PasskeyChallengeStoreFactory = () =>
  | PasskeyChallengeStoreFixture
  | Promise<PasskeyChallengeStoreFixture>

export const T0 = new Date('2031-03-04T05:06:07.123Z')
export const at = (ms: number): Date => new Date(T0.getTime() + ms)

export function passkey(overrides: Partial<PasskeyCredential> = {}): PasskeyCredential {
  return {
    credentialId: randomBytes(32).toString('base64url'),
    accountId: `account-${randomUUID()}`,
    publicKey: new Uint8Array(randomBytes(77)),
    counter: 5,
    transports: ['internal', 'hybrid'],
    deviceType: 'multiDevice',
    backedUp: true,
    name: 'Laptop',
    createdAt: T0,
    lastUsedAt: null,
    suspendedAt: null,
    ...overrides,
  }
}

const time = (value: Date | null) => value?.getTime() ?? null

export function samePasskey(a: PasskeyCredential | null | undefined, b: PasskeyCredential): boolean {
  return (
    a !== null &&
    a !== undefined &&
    a.credentialId === b.credentialId &&
    a.accountId === b.accountId &&
    Buffer.from(a.publicKey).equals(Buffer.from(b.publicKey)) &&
    a.counter === b.counter &&
    JSON.stringify(a.transports) === JSON.stringify(b.transports) &&
    a.deviceType === b.deviceType &&
    a.backedUp === b.backedUp &&
    a.name === b.name &&
    time(a.createdAt) === time(b.createdAt) &&
    time(a.lastUsedAt) === time(b.lastUsedAt) &&
    time(a.suspendedAt) === time(b.suspendedAt)
  )
}

export const digest = (): string => createHash('sha256').update(randomBytes(32)).digest('base64url')

export function challenge(overrides: Partial<PasskeyChallenge> = {}): PasskeyChallenge {
  return {
    challengeDigest: digest(),
    bindingDigest: digest(),
    ceremony: 'registration',
    accountId: `account-${randomUUID()}`,
    sessionDigest: digest(),
    purpose: null,
    createdAt: T0,
    expiresAt: at(300_000),
    ...overrides,
  }
}

export function sameChallenge(a: PasskeyChallenge | null, b: PasskeyChallenge): boolean {
  return (
    a !== null &&
    a.challengeDigest === b.challengeDigest &&
    a.bindingDigest === b.bindingDigest &&
    a.ceremony === b.ceremony &&
    a.accountId === b.accountId &&
    a.sessionDigest === b.sessionDigest &&
    a.purpose === b.purpose &&
    a.createdAt.getTime() === b.createdAt.getTime() &&
    a.expiresAt.getTime() === b.expiresAt.getTime()
  )
}

export async function codeOf(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call()
    return 'resolved'
  } catch (error) {
    return (error as { code?: string }).code
  }
}
