import type { OutboxEntry } from '../mail/outbox.js'

/** An organization: a tenant of the application. Its id is the tenant id guards and snapshots use. */
export interface Organization {
  readonly organizationId: string
  readonly name: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** One account's membership of one organization, with its one role (a name of the role catalogue). */
export interface Membership {
  readonly organizationId: string
  readonly accountId: string
  readonly role: string
  readonly joinedAt: Date
  readonly updatedAt: Date
}

/** A membership together with its organization's name (what an account's organization list shows). */
export interface AccountOrganization extends Membership {
  readonly organizationName: string
}

/** A pending invitation as listed: never its code or digest. */
export interface Invitation {
  /** A flow id (`generateFlowId`): the link carries it beside the code. */
  readonly invitationId: string
  readonly organizationId: string
  /** The normalized address it was sent to; only an account holding it verified may accept. */
  readonly address: string
  /** The role the membership gets on acceptance. */
  readonly role: string
  readonly inviterAccountId: string
  readonly keyVersion: number
  readonly createdAt: Date
  readonly expiresAt: Date
}

/** An invitation as written: the listed fields and the HMAC digest of its code (`digestCode`). */
export interface NewInvitation extends Invitation {
  /** `CodeKeyRing.issueDigest({ id: invitationId, purpose: 'invitation', code })`: the code itself is never stored. */
  readonly digest: string
}

/** Messages written in the same transaction as the change, only when it happens (`sealOutboxMessage`). */
export interface WithOutbox {
  readonly outbox?: readonly OutboxEntry[] | undefined
}
