import { randomBytes } from 'node:crypto'
import { AccountEmail } from '@portcullis/core/account-email'
import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing, MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import {
  generateLocalSigningKey,
  LocalAccounts,
  LocalSigningKeyRing,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
} from '@portcullis/core/local-accounts'
import {
  type MailMessage,
  MemoryMailOutbox,
  MemoryNotificationSettings,
  openOutboxMessage,
} from '@portcullis/core/mail'
import { anyOf } from '@portcullis/core/policy'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { ORIGIN, scryptHasher } from './account-world.js'
import type { AdapterScenario } from './scenario.js'

/** A clock the cases move (milliseconds since the epoch). */
export function movableClock(start = Date.now()) {
  let now = start
  return Object.assign(() => now, {
    advance(ms: number) {
      now += ms
    },
  })
}

/**
 * The email-change world: local accounts (hybrid profile, sign-in by username or verified address),
 * the account routes (password step-up), and the account email routes with email change, sign-in by
 * email code (turned on) and notification settings, all over memory stores that write their mail into
 * one outbox the cases read back.
 */
export async function emailChangeWorld() {
  const clock = movableClock()
  const outbox = new MemoryMailOutbox()
  const codes = new MemoryOneTimeCodeStore({ outbox })
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const accounts = new MemoryAccountStore({ outbox, cascade: [sessions, stepUpStore, codes] })
  const rateLimits = new MemoryRateLimitStore()
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const ring = new LocalSigningKeyRing({ active: await generateLocalSigningKey({ now: new Date() }) })
  const local = new LocalAccounts({
    profile: 'hybrid',
    accounts,
    sessions,
    refreshTokens: new MemoryRefreshTokenStore(),
    rateLimits,
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    signInWith: ['username', 'email'],
    tokens: { ring, issuer: ORIGIN, audience: `${ORIGIN}/api`, jwksUri: `${ORIGIN}/auth/jwks.json` },
    clock,
  })
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(clock()) })
  const notificationSettings = new MemoryNotificationSettings()
  const accountEmail = new AccountEmail({
    accounts,
    local,
    codes,
    outbox,
    notificationSettings,
    protector,
    codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    publicOrigin: ORIGIN,
    rateLimits,
    stepUp,
    signInWith: ['username', 'email'],
    signInCode: { enabled: true },
    clock,
  })
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const me = { auth: anyOf(...names) }
  const respond = ({ security }: { security: { principal: { id: string } | null } }) => ({
    id: security.principal?.id ?? null,
  })
  const scenario: AdapterScenario = {
    security: { mechanisms: local.mechanisms, openapi: { info: { title: 'Email change', version: '1' } } },
    routes: [
      { method: 'GET', path: '/me', options: me, respond },
      { method: 'POST', path: '/me', options: me, respond },
    ],
    local,
    accounts: { service: new AccountService({ accounts, local, stepUp }), local },
    accountEmail: { accountEmail, local },
  }
  /** Every message in the outbox, oldest first. */
  const messages = async (): Promise<MailMessage[]> =>
    Promise.all(
      [...outbox.pending()]
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map((row) => openOutboxMessage(protector, row)),
    )
  /** The newest message of `kind` and the flow and code its link carries; each step moves the clock. */
  const lastOf = async (kind: MailMessage['kind']) => {
    const message = (await messages()).filter((each) => each.kind === kind).at(-1)
    if (message === undefined) return undefined
    const link = 'link' in message ? message.link : 'undoLink' in message ? message.undoLink : undefined
    const url = link === undefined ? undefined : new URL(link)
    return {
      message,
      flow: url?.searchParams.get('flow') ?? '',
      code: new URLSearchParams(url?.hash.slice(1) ?? '').get('code') ?? '',
    }
  }
  /** Gives the account a verified primary address (what sign-up and verification would have done). */
  const verifiedAddress = async (accountId: string, address: string) => {
    const now = new Date(clock())
    await accounts.addEmailAddress({ accountId, address, now })
    await accounts.verifyEmailAddress({ accountId, address, now })
  }
  const addresses = async (accountId: string) =>
    (await accounts.listEmailAddresses(accountId)).map(
      (each) => `${each.address}${each.primary ? ' primary' : ''}${each.verified ? ' verified' : ''}`,
    )
  return { scenario, clock, accounts, outbox, messages, lastOf, verifiedAddress, addresses }
}
