import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, MemoryRateLimitStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import { type InvitationMessage, MemoryMailOutbox, openOutboxMessage } from '@portcullis/core/mail'
import {
  createOrganizationDomains,
  type DnsTxtResolver,
  MemoryOrganizationDomainStore,
} from '@portcullis/core/organization-domains'
import { MemoryOrganizationStore, OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { ORIGIN, PASSWORD, scryptHasher } from './account-world.js'
import { type Browser, browser } from './factor-client.js'
import type { AdapterScenario } from './scenario.js'

/**
 * The TXT records the world's resolver answers, by name: the `DnsTxtResolver` port over a table the
 * case writes (what an organization's DNS administrator publishes). The lookups themselves are tested
 * against a real DNS server with the core; these cases are about what the routes answer over HTTP.
 */
export class PublishedRecords implements DnsTxtResolver {
  readonly #records = new Map<string, string[][]>()

  publish(name: string, text: string): void {
    this.#records.set(name.toLowerCase(), [[text]])
  }

  async resolveTxt(name: string): Promise<readonly (readonly string[])[]> {
    return this.#records.get(name.toLowerCase()) ?? []
  }
}

/**
 * The organization-domain world: local accounts (session profile, memory stores), a memory
 * organization store whose memberships the routes read, the domain flows over a memory domain store
 * with a small free-mail list, and the local-account and organization-domain routes.
 */
export function organizationDomainWorld() {
  const outbox = new MemoryMailOutbox()
  const organizations = new MemoryOrganizationStore({ outbox })
  const sessions = new MemorySessionStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, organizations] })
  const local = new LocalAccounts({
    profile: 'session',
    accounts,
    sessions,
    rateLimits: new MemoryRateLimitStore(),
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
  })
  const records = new PublishedRecords()
  const domains = createOrganizationDomains({
    store: new MemoryOrganizationDomainStore(),
    freeMailDomains: new Set(['gmail.com', 'outlook.com']),
    resolver: records,
  })
  const scenario: AdapterScenario = {
    security: { mechanisms: local.mechanisms, openapi: { info: { title: 'Domains', version: '1' } } },
    routes: [],
    local,
    organizationDomains: { local, domains, memberships: organizations, accounts },
  }
  /** Registers and signs in `username`: its browser and account id. */
  const signIn = async (url: string, username: string): Promise<{ client: Browser; accountId: string }> => {
    const client = browser(url)
    const registered = await client.post('/auth/register', { username, password: PASSWORD })
    if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`)
    const login = await client.post('/auth/login', { username, password: PASSWORD })
    if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`)
    return { client, accountId: (login.json() as { accountId: string }).accountId }
  }
  /** An organization `owner` owns. */
  const organization = async (organizationId: string, owner: string) => {
    const created = await organizations.createOrganization({
      organizationId,
      name: organizationId,
      ownerAccountId: owner,
      now: new Date(),
    })
    if (created.outcome !== 'created') throw new Error(`organization fixture: ${created.outcome}`)
  }
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const invitations = new OrganizationInvitations({
    invitations: organizations,
    organizations,
    memberships: organizations,
    keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    protector,
    publicOrigin: ORIGIN,
  })
  /** Makes `accountId` a member with `role` through a real invitation to a verified address. */
  const join = async (organizationId: string, inviter: string, accountId: string, role: string) => {
    const address = `${accountId}@people.example`
    const now = new Date()
    await accounts.addEmailAddress({ accountId, address, now })
    await accounts.verifyEmailAddress({ accountId, address, now })
    const invitation = await invitations.invite({ organizationId, inviterAccountId: inviter, address, role })
    const row = outbox.pending().at(-1)
    if (row === undefined) throw new Error('no invitation mail')
    const mail = (await openOutboxMessage(protector, row)) as InvitationMessage
    await invitations.accept({ invitationId: invitation.invitationId, code: mail.code, accountId })
  }
  return { scenario, records, signIn, organization, join }
}
