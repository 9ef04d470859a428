import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { MemoryRateLimitStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import { type InvitationMessage, openOutboxMessage } from '@portcullis/core/mail'
import {
  type InvitationLimit,
  MemoryOrganizationStore,
  OrganizationInvitations,
  type OrganizationStores,
} from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { ORIGIN, PASSWORD, sessionLocalAccounts } from './account-world.js'
import { type Browser, browser } from './factor-client.js'
import type { Answer } from './http-client.js'
import { WriteOrderOutbox } from './mail-world.js'
import { switchable } from './outage-cases.js'
import type { AdapterScenario } from './scenario.js'

const DAY_MS = 86_400_000

/**
 * What the organization cases share: local accounts (session profile, memory stores), a memory
 * organization store joined to the accounts (deleting an account, accepting needs its verified
 * addresses), invitations whose mail lands in a memory outbox the cases open like a relay would, a
 * clock the cases can move forward, and a switch that takes the organization store down (a typed
 * `unavailable` error, as a database-backed store throws in an outage).
 */
export function organizationBase(options: { readonly perInviter?: InvitationLimit } = {}) {
  const outbox = new WriteOrderOutbox()
  const store = new MemoryOrganizationStore({ outbox })
  const sessions = new MemorySessionStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, store] })
  const local = sessionLocalAccounts({ accounts, sessions })
  const outage = { down: false }
  const organizations: OrganizationStores = switchable(store, outage)
  let offset = 0
  const clock = () => Date.now() + offset
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
    clock,
    ...(options.perInviter === undefined
      ? {}
      : { rateLimits: new MemoryRateLimitStore(), perInviter: options.perInviter }),
  })

  /** Registers and signs in `username`: its browser and account id. */
  const signIn = async (url: string, username: string): Promise<{ client: Browser; accountId: string }> => {
    const client = browser(url)
    const registered = await client.post('/auth/register', { username, password: PASSWORD })
    if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`)
    const login = await client.post('/auth/login', { username, password: PASSWORD })
    if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`)
    return { client, accountId: (login.json() as { accountId: string }).accountId }
  }
  /** Gives `accountId` the address, verified unless `verified` is false. */
  const holdAddress = async (accountId: string, address: string, verified = true) => {
    const now = new Date(clock())
    await accounts.addEmailAddress({ accountId, address, now })
    if (verified) await accounts.verifyEmailAddress({ accountId, address, now })
  }
  /** An organization `owner` owns, written to the store directly. */
  const organization = async (organizationId: string, owner: string) => {
    const created = await store.createOrganization({
      organizationId,
      name: organizationId,
      ownerAccountId: owner,
      now: new Date(clock()),
    })
    if (created.outcome !== 'created') throw new Error(`organization fixture: ${created.outcome}`)
  }
  /** The invitation mail written last to `address`, opened as the mail relay opens it. */
  const mailTo = async (address: string): Promise<InvitationMessage> => {
    for (const row of outbox.newestFirst()) {
      const message = await openOutboxMessage(protector, row)
      if (message.kind === 'invitation' && message.to.address === address) return message
    }
    throw new Error(`no invitation mail to ${address}`)
  }
  /** Makes `accountId` a member with `role` through a real invitation to a verified address. */
  const join = async (organizationId: string, inviter: string, accountId: string, role: string) => {
    const address = `${accountId}@people.example`
    await holdAddress(accountId, address)
    const invitation = await invitations.invite({ organizationId, inviterAccountId: inviter, address, role })
    const mail = await mailTo(address)
    await invitations.accept({ invitationId: invitation.invitationId, code: mail.code, accountId })
  }
  return {
    store,
    organizations,
    invitations,
    accounts,
    local,
    outage,
    clock,
    /** Moves the clock of the invitations and routes forward by `days`. */
    advanceDays: (days: number) => {
      offset += days * DAY_MS
    },
    signIn,
    holdAddress,
    organization,
    mailTo,
    join,
  }
}

export type OrganizationBase = ReturnType<typeof organizationBase>

/**
 * The organization world: the organization base with the local-account and organization routes over
 * it, and the OpenAPI document served at `/openapi.json`.
 */
export function organizationWorld(options: { readonly perInviter?: InvitationLimit } = {}) {
  const base = organizationBase(options)
  const { local, organizations, invitations, clock } = base
  const scenario: AdapterScenario = {
    security: { mechanisms: local.mechanisms, openapi: { info: { title: 'Organizations', version: '1' } } },
    routes: [],
    local,
    organizations: { local, organizations, invitations, clock },
  }
  return { ...base, scenario }
}

/** What an accepting page takes from the mail's link: the flow id of its query, the code of its fragment. */
export function acceptBodyOf(mail: InvitationMessage): { invitationId: string; code: string } {
  const link = new URL(mail.link)
  const invitationId = link.searchParams.get('flow') ?? ''
  const code = new URLSearchParams(link.hash.slice(1)).get('code') ?? ''
  return { invitationId, code }
}

export interface MemberBody {
  readonly organizationId: string
  readonly accountId: string
  readonly role: string
}

export const membersOf = (answer: Answer) =>
  answer.json() as { members: readonly MemberBody[]; next: string | null }
