import { accounts } from '@portcullis/core/oauth'
import type { PostgresOAuthAccountStore } from '@portcullis/postgres'

/** What a demo user's link to the demo IdP is granted: what the app asks the demo IdP for. */
const DEMO_LINK_SCOPES = ['openid', 'profile', 'email'] as const

/** A demo user whose demo-IdP identity (`sub` = the username) belongs to its account. */
export interface DemoIdentityOwner {
  readonly accountId: string
  readonly username: string
}

/**
 * Links each demo user's demo-IdP identity (exact on `(iss, sub)`: linking never uses the email) to the
 * demo user's own account, so that choosing "Alice Archer" at the demo IdP signs in to Alice's account
 * instead of creating a second, empty one. Runs at every start: a link to an earlier issuer of the demo
 * IdP (another port) is replaced, a link that is already there is kept. An identity that an earlier
 * sign-in made the one method of another account stays there; the answer says so, one line each.
 */
export async function linkDemoIdentities(input: {
  /** The demo IdP's view of the account store (`accountStore.oauth(...)` of provider `demo`). */
  readonly store: PostgresOAuthAccountStore
  readonly provider: string
  readonly issuer: string
  readonly owners: readonly DemoIdentityOwner[]
  readonly now?: Date
}): Promise<readonly string[]> {
  const notices: string[] = []
  for (const owner of input.owners) {
    const identity = { provider: input.provider, issuer: input.issuer, subject: owner.username }
    const current = await input.store.resolveLink({ accountId: owner.accountId, provider: input.provider })
    if (current !== null && current.issuer === identity.issuer && current.subject === identity.subject)
      continue
    if (current !== null) {
      const removed = await input.store.unlink({
        accountId: owner.accountId,
        provider: input.provider,
        providerAccountId: current.providerAccountId,
      })
      // The account's only sign-in method (its password was removed): it keeps the identity it has.
      if (removed.status === 'final-method') {
        notices.push(
          `${owner.accountId} keeps its link to the demo IdP at ${current.issuer} (its only sign-in method): sign in with a password and link the demo IdP again`,
        )
        continue
      }
    }
    try {
      await input.store.link({
        accountId: owner.accountId,
        identity,
        grant: { scopes: [...DEMO_LINK_SCOPES], expiresAt: null },
        now: input.now ?? new Date(),
      })
    } catch (error) {
      if (!(error instanceof accounts.AccountLinkError)) throw error
      notices.push(
        `the demo IdP's ${owner.username} signs in to another account (made by an earlier sign-in through the demo IdP), not to ${owner.accountId}: delete that account to give the identity back`,
      )
    }
  }
  return notices
}
