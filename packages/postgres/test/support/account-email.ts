// One app instance of the email flows over Postgres, on its own pool: what the account-email tests of
// this package share (sign-up, verification, reset, email change on two instances).
import { AccountEmail } from '@portcullis/core/account-email'
import type { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, type PasswordHasher } from '@portcullis/core/local-accounts'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { StepUpService } from '@portcullis/core/step-up'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  PostgresAccountStore,
  type PostgresClient,
  PostgresOneTimeCodeStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '../../src/index.js'
import { PostgresMailOutbox, PostgresNotificationSettings } from '../../src/mail/index.js'

/** A password "hash" without cost, so registering and signing in stay fast. */
export const plainHasher: PasswordHasher = {
  hash: async (password) => `plain$${Buffer.from(password).toString('base64url')}`,
  verify: async (hash, password) => hash === `plain$${Buffer.from(password).toString('base64url')}`,
  needsRehash: () => false,
}

/**
 * Local accounts (session profile, sign-in by username or verified address) and `AccountEmail` over
 * the stores of `client`; `shared` is what every instance has alike (the secrets, the step-up service).
 */
export function accountEmailInstance(
  client: PostgresClient,
  shared: {
    readonly protector: OAuthTransactionProtector
    readonly codeKeys: CodeKeyRing
    readonly stepUp?: StepUpService
  },
) {
  const accounts = new PostgresAccountStore({ client })
  const rateLimits = new PostgresRateLimitStore({ client })
  const sessions = new PostgresSessionStore({ client })
  const outbox = new PostgresMailOutbox({ client })
  const local = new LocalAccounts({
    profile: 'session',
    accounts,
    sessions,
    rateLimits,
    hasher: plainHasher,
    registration: 'open',
    publicOrigin: 'https://app.example',
    passwordScreen: commonPasswordScreen(),
    signInWith: ['username', 'email'],
  })
  const accountEmail = new AccountEmail({
    accounts,
    local,
    codes: new PostgresOneTimeCodeStore({ client }),
    outbox,
    notificationSettings: new PostgresNotificationSettings({ client }),
    protector: shared.protector,
    codeKeys: shared.codeKeys,
    publicOrigin: 'https://app.example',
    rateLimits,
    signInWith: ['username', 'email'],
    ...(shared.stepUp === undefined ? {} : { stepUp: shared.stepUp }),
  })
  return { accounts, outbox, sessions, local, accountEmail }
}
