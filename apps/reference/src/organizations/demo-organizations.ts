import type { CodeKeyRing } from '@portcullis/core/codes'
import { generateCode, generateFlowId, UNAMBIGUOUS_ALPHABET } from '@portcullis/core/codes'
import { OrganizationErrorCodes, type OrganizationStores } from '@portcullis/core/organizations'
import { DEMO_TENANTS, DEMO_USERS } from '../directory/demo-directory.js'

/** A demo user as the account seed left it: its account id and its verified address, if any. */
export interface SeededMember {
  readonly username: string
  readonly accountId: string
  readonly email?: string
}

const DAY_MS = 86_400_000

const isDuplicate = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === OrganizationErrorCodes.duplicate

/**
 * The demo tenants as organizations (acme, globex, initech) with the demo users' memberships. Run at
 * every start, after the demo accounts: an organization that exists is left as its members left it (a
 * removed member stays removed), so an existing database gets the organizations once and loses nothing.
 * Two instances seeding at once: one creates an organization, the other is told `duplicate` and leaves it.
 * A member joins the way anyone does, through an invitation to its verified address that it accepts at
 * once (no mail is written: the code is known here only); a member without that address is said on the
 * console and left out. Returns one sentence per problem.
 */
export async function seedDemoOrganizations(input: {
  readonly store: OrganizationStores
  readonly keyRing: CodeKeyRing
  readonly members: readonly SeededMember[]
  readonly clock?: () => number
}): Promise<readonly string[]> {
  const notices: string[] = []
  const clock = input.clock ?? Date.now
  const accountOf = new Map(input.members.map((member) => [member.username, member]))
  for (const tenant of DEMO_TENANTS) {
    const people = DEMO_USERS.filter((user) => user.tenants[tenant.id] !== undefined)
    const owner = people.find((user) => user.tenants[tenant.id]?.includes('owner'))
    const ownerAccount = owner === undefined ? undefined : accountOf.get(owner.username)
    if (ownerAccount === undefined) continue
    const now = new Date(clock())
    try {
      const created = await input.store.createOrganization({
        organizationId: tenant.id,
        name: tenant.name,
        ownerAccountId: ownerAccount.accountId,
        now,
      })
      if (created.outcome !== 'created') continue
    } catch (error) {
      if (isDuplicate(error)) continue
      throw error
    }
    for (const user of people) {
      if (user === owner) continue
      const member = accountOf.get(user.username)
      const role = user.tenants[tenant.id]?.[0]
      if (member === undefined || role === undefined) continue
      const problem = await join(input, tenant.id, ownerAccount.accountId, member, role, now)
      if (problem !== undefined) notices.push(problem)
    }
  }
  return notices
}

async function join(
  input: { readonly store: OrganizationStores; readonly keyRing: CodeKeyRing },
  organizationId: string,
  inviterAccountId: string,
  member: SeededMember,
  role: string,
  now: Date,
): Promise<string | undefined> {
  if (member.email === undefined)
    return `demo user ${member.username}: no verified address, so not a member of ${organizationId}`
  const invitationId = generateFlowId()
  const code = generateCode({ length: 12, alphabet: UNAMBIGUOUS_ALPHABET })
  const { digest, keyVersion } = input.keyRing.issueDigest({ id: invitationId, purpose: 'invitation', code })
  const issued = await input.store.issueInvitation({
    invitation: {
      invitationId,
      organizationId,
      address: member.email,
      role,
      inviterAccountId,
      digest,
      keyVersion,
      createdAt: now,
      expiresAt: new Date(now.getTime() + DAY_MS),
    },
    now,
  })
  if (issued.outcome !== 'issued') return `demo organization ${organizationId}: ${issued.outcome}`
  const accepted = await input.store.acceptInvitation({
    invitationId,
    candidates: input.keyRing.candidates({ id: invitationId, purpose: 'invitation', code }),
    accountId: member.accountId,
    now,
  })
  if (accepted.outcome === 'accepted' || accepted.outcome === 'already-member') return undefined
  return `demo user ${member.username}: ${accepted.outcome}, so not a member of ${organizationId}`
}
