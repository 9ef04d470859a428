import { createHash } from 'node:crypto'
import { normalizeEmailAddress } from '../accounts/email-address.js'
import type { CodeKeyRing } from '../codes/code-keys.js'
import {
  type CodeRandomSource,
  generateCode,
  generateFlowId,
  UNAMBIGUOUS_ALPHABET,
} from '../codes/generate.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { RateLimitStore } from '../local-accounts/rate-limits/rate-limit-store.js'
import { sealOutboxMessage } from '../mail/outbox-seal.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import { invalidOrganizationInput, OrganizationError, OrganizationErrorCodes } from './errors.js'
import type { InvitationStore, MembershipStore, OrganizationStore } from './port.js'
import type { Invitation, Membership } from './records.js'
import { OrganizationPermissions, OrganizationRoles } from './roles.js'
import {
  requireInvitationId,
  requireMemberAccountId,
  requireOrganizationId,
  requireRoleName,
} from './validate.js'

const DAY_MS = 86_400_000
const CODE_LENGTH = 12

/** A fixed-window limit: `limit` invitations per `windowSeconds` (at most one day). */
export interface InvitationLimit {
  readonly limit: number
  readonly windowSeconds: number
}

export interface OrganizationInvitationsOptions {
  /** The stores (one `MemoryOrganizationStore` or `PostgresOrganizationStore` serves all three). */
  readonly invitations: InvitationStore
  readonly organizations: Pick<OrganizationStore, 'getOrganization'>
  readonly memberships: Pick<MembershipStore, 'membershipsOf'>
  /** The catalogue the stores use (default owner, admin, member). */
  readonly roles?: OrganizationRoles
  /** The keys invitation codes are digested with (the one-time codes' ring may be shared). */
  readonly keyRing: CodeKeyRing
  /** Seals the invitation mail into the outbox. */
  readonly protector: OAuthTransactionProtector
  /** `https://app.example`: the accept link is built on it, never on a request's `Host`. */
  readonly publicOrigin: string
  /** The page that accepts (it reads `flow` from the query and `code` from the fragment, then POSTs). */
  readonly acceptPath?: string
  /** The shared counters; without them nothing is limited. */
  readonly rateLimits?: RateLimitStore
  /** Default 100 a day per organization. */
  readonly perOrganization?: InvitationLimit
  /** Default 20 an hour per inviter. */
  readonly perInviter?: InvitationLimit
  /** Default 7; each invitation may ask for 1 to 30. */
  readonly lifetimeDays?: number
  readonly clock?: () => number
  readonly randomBytes?: CodeRandomSource
}

export interface InviteRequest {
  readonly organizationId: string
  /** The signed-in inviter, from the verified principal. */
  readonly inviterAccountId: string
  /** Normalized here; only an account holding it verified may accept. */
  readonly address: string
  readonly role: string
  /** 1 to 30; default the configured lifetime. */
  readonly lifetimeDays?: number
  readonly locale?: string
}

export interface ResendRequest {
  readonly organizationId: string
  readonly invitationId: string
  readonly actorAccountId: string
  readonly lifetimeDays?: number
  readonly locale?: string
}

export interface AcceptRequest {
  readonly invitationId: string
  /** The code as typed or carried by the link (case, spaces and hyphens ignored). */
  readonly code: string
  /** The signed-in account, from the verified principal. */
  readonly accountId: string
}

function originOf(value: unknown): string {
  let url: URL
  try {
    url = new URL(String(value))
  } catch {
    throw new ConfigurationError('organizations.invalid_config', 'publicOrigin must be an absolute URL')
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== String(value)) {
    throw new ConfigurationError(
      'organizations.invalid_config',
      'publicOrigin must be an http(s) origin without path',
    )
  }
  return url.origin
}

function checkedLimit(
  value: InvitationLimit | undefined,
  fallback: InvitationLimit,
  name: string,
): InvitationLimit {
  const limit = value ?? fallback
  if (
    !Number.isInteger(limit.limit) ||
    limit.limit < 1 ||
    !Number.isInteger(limit.windowSeconds) ||
    limit.windowSeconds < 1 ||
    limit.windowSeconds > 86_400
  ) {
    throw new ConfigurationError(
      'organizations.invalid_config',
      `${name} needs a limit >= 1 and a window of 1 to 86400 s`,
    )
  }
  return limit
}

function lifetime(days: unknown, field: string): number {
  if (!Number.isInteger(days) || (days as number) < 1 || (days as number) > 30) {
    throw invalidOrganizationInput(`${field} must be an integer from 1 to 30`)
  }
  return days as number
}

const limitKey = (scope: string, id: string) =>
  `organizations.invite.${scope}.${createHash('sha256').update(id).digest('base64url')}`

/** Why the store refused, as the typed error a route renders. */
export function organizationRefusal(outcome: string): OrganizationError {
  switch (outcome) {
    case 'forbidden':
      return new OrganizationError(
        OrganizationErrorCodes.forbidden,
        'the actor lacks the permission this needs',
      )
    case 'rank-exceeded':
      return new OrganizationError(OrganizationErrorCodes.rankExceeded, 'the role ranks above the actor')
    case 'last-owner':
      return new OrganizationError(
        OrganizationErrorCodes.lastOwner,
        'an organization keeps at least one owner',
      )
    case 'expired':
      return new OrganizationError(OrganizationErrorCodes.invitationExpired, 'the invitation has expired')
    case 'address-mismatch':
      return new OrganizationError(
        OrganizationErrorCodes.addressMismatch,
        'the invitation was sent to an address this account has not verified',
      )
    case 'already-member':
      return new OrganizationError(OrganizationErrorCodes.alreadyMember, 'the account is already a member')
    case 'limit-reached':
      return new OrganizationError(
        OrganizationErrorCodes.joinRequestLimit,
        'the organization holds as many pending requests to join as it may',
      )
    default:
      return new OrganizationError(
        OrganizationErrorCodes.notFound,
        'no such organization, member or invitation',
      )
  }
}

/**
 * Invitations by email over the stores: a code shown once (in the mail only), stored as an HMAC
 * digest, valid 7 days by default (1 to 30), bound to the normalized address, its mail sealed into the
 * outbox in the invitation's own transaction, limited per organization and per inviter. Refusals are
 * `OrganizationError`s with stable codes.
 */
export class OrganizationInvitations {
  readonly #options: OrganizationInvitationsOptions
  readonly #roles: OrganizationRoles
  readonly #origin: string
  readonly #lifetimeDays: number
  readonly #perOrganization: InvitationLimit
  readonly #perInviter: InvitationLimit
  readonly #clock: () => number

  constructor(options: OrganizationInvitationsOptions) {
    if (typeof options?.invitations?.issueInvitation !== 'function' || options.keyRing === undefined) {
      throw new ConfigurationError(
        'organizations.invalid_config',
        'OrganizationInvitations needs its stores and keyRing',
      )
    }
    this.#options = options
    this.#roles = options.roles ?? OrganizationRoles.defaults
    this.#origin = originOf(options.publicOrigin)
    this.#lifetimeDays = lifetime(options.lifetimeDays ?? 7, 'lifetimeDays')
    this.#perOrganization = checkedLimit(
      options.perOrganization,
      { limit: 100, windowSeconds: 86_400 },
      'perOrganization',
    )
    this.#perInviter = checkedLimit(options.perInviter, { limit: 20, windowSeconds: 3_600 }, 'perInviter')
    this.#clock = options.clock ?? Date.now
  }

  /** Issues an invitation and writes its mail; the code exists only in that mail. */
  async invite(request: InviteRequest): Promise<Invitation> {
    const organizationId = requireOrganizationId(request.organizationId)
    const inviterAccountId = requireMemberAccountId(request.inviterAccountId, 'inviterAccountId')
    const role = requireRoleName(request.role)
    if (!this.#roles.has(role)) throw invalidOrganizationInput('role is not one of the role catalogue')
    let address: string
    try {
      address = normalizeEmailAddress(request.address)
    } catch {
      throw invalidOrganizationInput('address must be an email address')
    }
    const days = lifetime(request.lifetimeDays ?? this.#lifetimeDays, 'lifetimeDays')
    const now = new Date(this.#clock())
    await this.#limit(organizationId, inviterAccountId, now)
    const organization = await this.#options.organizations.getOrganization(organizationId)
    if (organization === null) throw organizationRefusal('not-found')
    const invitationId = generateFlowId(this.#options.randomBytes)
    const { code, digest, keyVersion } = this.#newCode(invitationId)
    const outbox = await this.#mail(organization.name, address, invitationId, code, days, now, request.locale)
    const outcome = await this.#options.invitations.issueInvitation({
      invitation: {
        invitationId,
        organizationId,
        address,
        role,
        inviterAccountId,
        digest,
        keyVersion,
        createdAt: now,
        expiresAt: new Date(now.getTime() + days * DAY_MS),
      },
      now,
      outbox,
    })
    if (outcome.outcome !== 'issued') throw organizationRefusal(outcome.outcome)
    return outcome.invitation
  }

  /** A new code (the old one stops working) and a new lifetime, mailed again. */
  async resend(request: ResendRequest): Promise<Invitation> {
    const organizationId = requireOrganizationId(request.organizationId)
    const invitationId = requireInvitationId(request.invitationId)
    const actorAccountId = requireMemberAccountId(request.actorAccountId, 'actorAccountId')
    const days = lifetime(request.lifetimeDays ?? this.#lifetimeDays, 'lifetimeDays')
    const now = new Date(this.#clock())
    await this.#limit(organizationId, actorAccountId, now)
    const listed = await this.#options.invitations.listInvitations({ organizationId, actorAccountId, now })
    if (listed.outcome !== 'listed') throw organizationRefusal(listed.outcome)
    const pending = listed.invitations.find((item) => item.invitationId === invitationId)
    const organization = await this.#options.organizations.getOrganization(organizationId)
    if (pending === undefined || organization === null) throw organizationRefusal('not-found')
    const { code, digest, keyVersion } = this.#newCode(invitationId)
    const outbox = await this.#mail(
      organization.name,
      pending.address,
      invitationId,
      code,
      days,
      now,
      request.locale,
    )
    const outcome = await this.#options.invitations.resendInvitation({
      organizationId,
      invitationId,
      actorAccountId,
      digest,
      keyVersion,
      expiresAt: new Date(now.getTime() + days * DAY_MS),
      now,
      outbox,
    })
    if (outcome.outcome !== 'resent') throw organizationRefusal(outcome.outcome)
    return outcome.invitation
  }

  /** Accepts for the signed-in account; the membership, or an `OrganizationError`. */
  async accept(request: AcceptRequest): Promise<Membership> {
    const invitationId = requireInvitationId(request.invitationId)
    const accountId = requireMemberAccountId(request.accountId)
    const code = typeof request.code === 'string' ? request.code.replace(/[\s-]/g, '').toUpperCase() : ''
    if (code.length < 4 || code.length > 64 || !/^[A-Z0-9]+$/.test(code))
      throw organizationRefusal('not-found')
    const candidates = this.#options.keyRing.candidates({ id: invitationId, purpose: 'invitation', code })
    const outcome = await this.#options.invitations.acceptInvitation({
      invitationId,
      candidates,
      accountId,
      now: new Date(this.#clock()),
    })
    if (outcome.outcome !== 'accepted') throw organizationRefusal(outcome.outcome)
    return outcome.membership
  }

  #newCode(invitationId: string): { code: string; digest: string; keyVersion: number } {
    const code = generateCode({
      length: CODE_LENGTH,
      alphabet: UNAMBIGUOUS_ALPHABET,
      ...(this.#options.randomBytes === undefined ? {} : { randomBytes: this.#options.randomBytes }),
    })
    const { digest, keyVersion } = this.#options.keyRing.issueDigest({
      id: invitationId,
      purpose: 'invitation',
      code,
    })
    return { code, digest, keyVersion }
  }

  async #mail(
    organizationName: string,
    address: string,
    invitationId: string,
    code: string,
    validForDays: number,
    now: Date,
    locale = 'en',
  ) {
    const url = new URL(this.#options.acceptPath ?? '/organizations/invitations/accept', this.#origin)
    url.search = new URLSearchParams({ flow: invitationId }).toString()
    url.hash = new URLSearchParams({ code }).toString()
    const entry = await sealOutboxMessage(
      this.#options.protector,
      {
        kind: 'invitation',
        to: { address },
        locale,
        organizationName,
        code,
        link: url.toString(),
        validForDays,
      },
      { now, accountId: null },
    )
    return [entry]
  }

  /**
   * The inviter's own window first (anyone signed in spends only their own), then, for a member who
   * may invite, the organization's: a stranger cannot use up an organization's invitations.
   */
  async #limit(organizationId: string, inviterAccountId: string, now: Date): Promise<void> {
    const store = this.#options.rateLimits
    if (store === undefined) return
    const check = async (key: string, limit: InvitationLimit) => {
      const decision = await store.consume({
        key,
        limit: limit.limit,
        windowSeconds: limit.windowSeconds,
        now,
      })
      if (!decision.allowed) {
        throw new OrganizationError(OrganizationErrorCodes.rateLimited, 'too many invitations; try later', {
          retryAfterSeconds: Math.max(1, Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000)),
        })
      }
    }
    await check(limitKey('inviter', inviterAccountId), this.#perInviter)
    const memberships = await this.#options.memberships.membershipsOf(inviterAccountId)
    const own = memberships.find((item) => item.organizationId === organizationId)
    if (own === undefined || !this.#roles.allows(own.role, OrganizationPermissions.invite)) return
    await check(limitKey('organization', organizationId), this.#perOrganization)
  }
}
