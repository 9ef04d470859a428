import type { Account, AccountSearchHit } from '@portcullis/core/accounts'
import type { AdministeredAccount, AdministrativeOutcome } from '@portcullis/core/administration'
import type { SecurityLogEntry } from '@portcullis/core/security-log'
import { methodBody } from '../accounts/bodies.js'

// The JSON forms of the administration answers: identifiers, states and times only; never a password
// hash, key digest, session id or token.

const iso = (date: Date | undefined | null) => (date instanceof Date ? date.toISOString() : null)

export function accountBody(account: Account): Record<string, unknown> {
  return {
    accountId: account.accountId,
    status: account.status,
    securityEpoch: account.securityEpoch,
    createdAt: account.createdAt.toISOString(),
  }
}

export function searchHitBody(hit: AccountSearchHit): Record<string, unknown> {
  return { ...accountBody(hit.account), username: hit.username, email: hit.email, matched: hit.matched }
}

export function outcomeBody(outcome: AdministrativeOutcome): Record<string, unknown> {
  return { account: outcome.account === null ? null : accountBody(outcome.account), auditId: outcome.auditId }
}

function eventBody(entry: SecurityLogEntry): Record<string, unknown> {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    type: entry.type,
    actorId: entry.actorId,
    reason: entry.reason ?? (typeof entry.details.reasonText === 'string' ? entry.details.reasonText : null),
    device: entry.device,
    address: entry.clientAddress ?? entry.clientAddressHash,
  }
}

export function accountViewBody(view: AdministeredAccount): Record<string, unknown> {
  return {
    ...accountBody(view.account),
    username: view.username,
    emails: view.emails.map((email) => ({
      address: email.address,
      verified: email.verified,
      primary: email.primary,
    })),
    methods: view.methods.map(methodBody),
    factors: view.factors,
    sessions: view.sessions.map((session) => ({
      handle: session.id,
      createdAt: iso(session.createdAt),
      lastSeenAt: iso(session.lastSeenAt),
      userAgent: session.userAgent ?? null,
      clientAddress: session.clientAddress ?? null,
    })),
    apiKeys: view.apiKeys.map((key) => ({
      keyId: key.keyId,
      label: key.label ?? null,
      createdAt: iso(key.createdAt),
      expiresAt: iso(key.expiresAt),
      revokedAt: iso(key.revokedAt),
      lastUsedAt: iso(key.lastUsedAt),
    })),
    grants: view.grants.map((grant) => ({
      grantId: grant.grantId,
      clientId: grant.clientId,
      clientName: grant.clientName ?? null,
      scopes: grant.scopes,
      createdAt: iso(grant.createdAt),
      lastUsedAt: iso(grant.lastUsedAt),
    })),
    recentEvents: view.recentEvents.map(eventBody),
  }
}
