import type { AccountEmail } from '@portcullis/core/account-email'
import type { AccountService } from '@portcullis/core/accounts'
import type { LocalAccounts, SessionSignIn } from '@portcullis/core/local-accounts'
import type { Response } from 'express'
import type { AccountKit } from '../accounts/page-kit.js'

/** What the signed-in email pages (the account's addresses, the email change) are given. */
export interface EmailPageOptions {
  readonly accountEmail: AccountEmail
  /** The password step-up of purpose `email-change` each change spends. */
  readonly service: AccountService
  readonly local: LocalAccounts
  readonly kit: AccountKit
  /** Sets the renewed session a change that moved the epoch answered. */
  readonly setSession: (response: Response, signIn: SessionSignIn) => void
  /** Wakes the outbox drain, so the mail goes at once. */
  readonly wake?: () => void
}
