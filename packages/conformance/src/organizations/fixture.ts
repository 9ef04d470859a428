import { randomUUID } from 'node:crypto'
import type { DeleteAccountOutcome } from '@portcullis/core/accounts'
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import type { OutboxEntry } from '@portcullis/core/mail'
import type {
  AcceptInvitationRequest,
  Membership,
  NewInvitation,
  OrganizationStores,
} from '@portcullis/core/organizations'
import type { RevocationNotice, RevocationNotices } from '@portcullis/core/revocation'

/** One case's stores. Every case uses fresh accounts, organizations and addresses: stores may share data. */
export interface OrganizationStoresFixture {
  readonly store: OrganizationStores
  /** A second instance over the same data (another pool, as another app instance has); `store` if omitted. */
  readonly peer?: OrganizationStores
  /**
   * Makes an account the stores can name; with `address`, the account holds it (verified unless
   * `verified: false`). Its id.
   */
  createAccount(options?: { readonly address?: string; readonly verified?: boolean }): Promise<string>
  /** Deletes an account the way the application does (`AccountStore.deleteAccount`); its outcome. */
  deleteAccount?(accountId: string): Promise<DeleteAccountOutcome>
  /** The notices the store publishes into, and the peer's: `membership` notices must reach both. */
  readonly notices?: RevocationNotices
  readonly peerNotices?: RevocationNotices
  /** Which of `ids` the outbox holds. When given, issue and resend write their entries in their transaction. */
  storedOutboxIds?(ids: readonly string[]): Promise<readonly string[]>
  dispose?(): Promise<void> | void
}

export type OrganizationStoresFactory = () => OrganizationStoresFixture | Promise<OrganizationStoresFixture>

export const T0 = new Date('2031-05-06T07:08:09.000Z')
export const DAY = 86_400_000
export const CODE = 'K7M2Q9T4W8XZ'
export const RING = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(0x4f) })
export const at = (milliseconds: number): Date => new Date(T0.getTime() + milliseconds)

export const newOrganizationId = (): string => `org-${randomUUID()}`
export const newAddress = (): string => `invitee-${randomUUID()}@example.com`

/** Creates an organization owned by a fresh account; its id and the owner's. */
export async function ownedOrganization(
  fixture: OrganizationStoresFixture,
): Promise<{ organizationId: string; ownerId: string }> {
  const ownerId = await fixture.createAccount()
  const organizationId = newOrganizationId()
  const created = await fixture.store.createOrganization({
    organizationId,
    name: 'Acme',
    ownerAccountId: ownerId,
    now: T0,
  })
  if (created.outcome !== 'created') throw new Error(`organization fixture: ${created.outcome}`)
  return { organizationId, ownerId }
}

export interface InvitationOptions {
  readonly role?: string
  readonly address?: string
  readonly code?: string
  readonly expiresAt?: Date
}

/** A new invitation of `inviterAccountId` into the organization, digested under `RING`. */
export function newInvitation(
  organizationId: string,
  inviterAccountId: string,
  options: InvitationOptions = {},
): NewInvitation {
  const invitationId = generateFlowId()
  const { digest, keyVersion } = RING.issueDigest({
    id: invitationId,
    purpose: 'invitation',
    code: options.code ?? CODE,
  })
  return {
    invitationId,
    organizationId,
    address: options.address ?? newAddress(),
    role: options.role ?? 'member',
    inviterAccountId,
    digest,
    keyVersion,
    createdAt: T0,
    expiresAt: options.expiresAt ?? at(7 * DAY),
  }
}

export function accepting(
  invitation: Pick<NewInvitation, 'invitationId'>,
  accountId: string,
  options: { code?: string; now?: Date } = {},
): AcceptInvitationRequest {
  return {
    invitationId: invitation.invitationId,
    candidates: RING.candidates({
      id: invitation.invitationId,
      purpose: 'invitation',
      code: options.code ?? CODE,
    }),
    accountId,
    now: options.now ?? at(DAY),
  }
}

/** Adds a fresh account to the organization with `role` (through an accepted invitation); its id. */
export async function addMember(
  fixture: OrganizationStoresFixture,
  organizationId: string,
  ownerId: string,
  role: string,
): Promise<string> {
  const address = newAddress()
  const accountId = await fixture.createAccount({ address })
  const invitation = newInvitation(organizationId, ownerId, { role, address })
  const issued = await fixture.store.issueInvitation({ invitation, now: T0 })
  if (issued.outcome !== 'issued') throw new Error(`member fixture: ${issued.outcome}`)
  const accepted = await fixture.store.acceptInvitation(accepting(invitation, accountId))
  if (accepted.outcome !== 'accepted') throw new Error(`member fixture: ${accepted.outcome}`)
  return accountId
}

export async function roleOf(
  store: OrganizationStores,
  organizationId: string,
  accountId: string,
): Promise<string | undefined> {
  const memberships: readonly Membership[] = await store.membershipsOf(accountId)
  return memberships.find((item) => item.organizationId === organizationId)?.role
}

export function outboxEntry(): OutboxEntry {
  return {
    id: randomUUID(),
    kind: 'invitation',
    accountId: null,
    envelope: `v1.sealed.${randomUUID()}`,
    createdAt: T0,
  }
}

/** The `code` of a rejection, or `resolved`. */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'resolved',
    (error: unknown) => String((error as { code?: unknown }).code ?? (error as Error).message),
  )
}

/** Collects the notices a subscriber hears. */
export function hear(notices: RevocationNotices): { heard: RevocationNotice[]; stop: () => void } {
  const heard: RevocationNotice[] = []
  const stop = notices.subscribe({ revoked: (notice) => heard.push(notice), flush: () => {} })
  return { heard, stop }
}

export async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}
