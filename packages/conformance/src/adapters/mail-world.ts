import { randomBytes } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import { MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  type SecondFactorGate,
  type SessionStore,
} from '@portcullis/core/local-accounts'
import { type MailMessage, MemoryMailOutbox, openOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { ORIGIN, scryptHasher } from './account-world.js'

// What the worlds of the email flows share: a clock the cases move, memory stores that write their mail
// into one outbox, reading that outbox back and the hybrid local accounts.

/** A clock the cases move (milliseconds since the epoch). */
export function movableClock(start = Date.now()) {
  let now = start
  return Object.assign(() => now, {
    advance(ms: number) {
      now += ms
    },
  })
}

export type MovableClock = ReturnType<typeof movableClock>

/** The outbox, the code store writing into it, the rate limits and the protector sealing the entries. */
export function mailStores() {
  const outbox = new MemoryMailOutbox()
  return {
    outbox,
    codes: new MemoryOneTimeCodeStore({ outbox }),
    rateLimits: new MemoryRateLimitStore(),
    protector: new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    }),
  }
}

/** A message read back, and the flow and code its link (`link`, else `undoLink`) carries. */
export interface OutboxMail {
  readonly message: MailMessage | undefined
  readonly link: string | undefined
  readonly flow: string
  readonly code: string
}

/** Reads the outbox as the drain would send it: every message opened, oldest first. */
export function outboxReader(stores: Pick<ReturnType<typeof mailStores>, 'outbox' | 'protector'>) {
  const { outbox, protector } = stores
  const messages = async (): Promise<MailMessage[]> =>
    Promise.all(
      [...outbox.pending()]
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map((row) => openOutboxMessage(protector, row)),
    )
  /** The newest message that `matches`. */
  const newest = async (matches: (message: MailMessage) => boolean): Promise<OutboxMail> => {
    const message = (await messages()).filter(matches).at(-1)
    const link =
      message === undefined
        ? undefined
        : 'link' in message
          ? message.link
          : 'undoLink' in message
            ? message.undoLink
            : undefined
    const url = link === undefined ? undefined : new URL(link)
    return {
      message,
      link,
      flow: url?.searchParams.get('flow') ?? '',
      code: new URLSearchParams(url?.hash.slice(1) ?? '').get('code') ?? '',
    }
  }
  return { messages, newest }
}

/** Local accounts of the hybrid profile, signing in by username or verified address, on the world's clock. */
export async function hybridLocalAccounts(parts: {
  readonly accounts: AccountStore
  readonly sessions: SessionStore
  readonly rateLimits: MemoryRateLimitStore
  readonly clock: MovableClock
  readonly secondFactor?: SecondFactorGate
}): Promise<LocalAccounts> {
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  return new LocalAccounts({
    profile: 'hybrid',
    accounts: parts.accounts,
    sessions: parts.sessions,
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits: parts.rateLimits,
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    signInWith: ['username', 'email'],
    ...(parts.secondFactor === undefined ? {} : { secondFactor: parts.secondFactor }),
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    clock: parts.clock,
  })
}
