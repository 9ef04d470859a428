import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { PostgresAccountStore, PostgresOAuthAccountStore } from '@portcullis/postgres'
import { type SeededUser, seedDemoUsers } from '../accounts/local-accounts.js'
import { DEMO_PROVIDER } from '../accounts/oauth.js'
import { linkDemoIdentities } from '../demo-idp/demo-identities.js'
import type { DemoDirectory } from '../directory/demo-directory.js'
import { seedDemoOrganizations } from '../organizations/demo-organizations.js'
import type { ReferenceOrganizations } from '../organizations/organization-wiring.js'

const warn = (notice: string) => console.warn(`portcullis reference app: ${notice}`)

/**
 * The demo data, at every start and idempotent: the demo users' accounts and verified addresses, their
 * identities at the demo IdP linked to them, then the demo tenants as organizations with the users'
 * memberships (created once; later starts leave them as their members left them). What cannot be seeded
 * is said on stderr, one line each.
 */
export async function seedDemoData(input: {
  readonly local: LocalAccounts
  readonly store: PostgresAccountStore
  readonly directory: DemoDirectory
  readonly seed: Uint8Array
  readonly organizations: ReferenceOrganizations
  /** The demo IdP, when it runs, and the OAuth account stores (its identities are linked there). */
  readonly idp?: { readonly issuer: string } | undefined
  readonly oauth?: { accountsOf(provider: string): PostgresOAuthAccountStore | undefined } | undefined
}): Promise<readonly SeededUser[]> {
  const seeded = await seedDemoUsers({
    local: input.local,
    store: input.store,
    directory: input.directory,
    seed: input.seed,
    warn,
  })
  // The demo IdP's alice is the demo user alice: her identity there signs in to her own account.
  const links = input.oauth?.accountsOf(DEMO_PROVIDER)
  if (input.idp !== undefined && links !== undefined) {
    const notices = await linkDemoIdentities({
      store: links,
      provider: DEMO_PROVIDER,
      issuer: input.idp.issuer,
      owners: seeded,
    })
    for (const notice of notices) warn(notice)
  }
  const problems = await seedDemoOrganizations({
    store: input.organizations.store,
    keyRing: input.organizations.keyRing,
    members: seeded,
  })
  for (const notice of problems) warn(notice)
  return seeded
}
