import { ConfigurationError } from '../errors/portcullis-error.js'
import { OrganizationError, OrganizationErrorCodes } from './errors.js'
import {
  MAX_OWN_JOIN_REQUESTS,
  validateDecideJoinRequest,
  validateListJoinRequests,
  validateRequestToJoin,
  validateWithdrawJoinRequest,
} from './join-request-input.js'
import type {
  DecideJoinRequestOutcome,
  DecideJoinRequestRequest,
  JoinRequest,
  ListJoinRequestsOutcome,
  ListJoinRequestsRequest,
  RequestToJoinOutcome,
  RequestToJoinRequest,
  WithdrawJoinRequestOutcome,
  WithdrawJoinRequestRequest,
} from './join-request-port.js'
import type { MemoryOrganizationTables } from './memory-tables.js'
import { OrganizationPermissions } from './roles.js'
import { requireMemberAccountId } from './validate.js'

const INVITE = OrganizationPermissions.invite

const newestFirst = (a: JoinRequest, b: JoinRequest) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.requestId < b.requestId ? 1 : -1)

const copy = (row: JoinRequest): JoinRequest =>
  Object.freeze({ ...row, createdAt: new Date(row.createdAt.getTime()) })

function pendingOf(tables: MemoryOrganizationTables, organizationId: string, accountId: string) {
  for (const row of tables.joinRequests.values()) {
    if (row.organizationId === organizationId && row.accountId === accountId) return row
  }
  return undefined
}

export async function requestToJoin(
  tables: MemoryOrganizationTables,
  request: RequestToJoinRequest,
): Promise<RequestToJoinOutcome> {
  const { joinRequest, maxPendingPerOrganization } = validateRequestToJoin(request)
  const { organizationId, accountId } = joinRequest
  return tables.queue.run((): RequestToJoinOutcome => {
    const accounts = tables.accounts
    if (accounts === undefined) {
      throw new ConfigurationError(
        'organizations.accounts_not_joined',
        'requests to join need the accounts: pass this store to MemoryAccountStore({ cascade: [organizations] })',
      )
    }
    if (!tables.organizations.has(organizationId)) return { outcome: 'not-found' }
    if (tables.members.get(organizationId)?.has(accountId) === true) return { outcome: 'already-member' }
    const existing = pendingOf(tables, organizationId, accountId)
    if (existing !== undefined) return { outcome: 'pending', joinRequest: copy(existing) }
    if (accounts.verifiedHolderOf(joinRequest.address) !== accountId) return { outcome: 'address-mismatch' }
    if (tables.joinRequests.has(joinRequest.requestId)) {
      throw new OrganizationError(
        OrganizationErrorCodes.duplicate,
        'a request to join with this id is stored',
      )
    }
    let held = 0
    for (const row of tables.joinRequests.values()) if (row.organizationId === organizationId) held += 1
    if (held >= maxPendingPerOrganization) return { outcome: 'limit-reached' }
    tables.joinRequests.set(joinRequest.requestId, joinRequest)
    return { outcome: 'requested', joinRequest: copy(joinRequest) }
  })
}

export async function listJoinRequests(
  tables: MemoryOrganizationTables,
  request: ListJoinRequestsRequest,
): Promise<ListJoinRequestsOutcome> {
  const { organizationId, actorAccountId, limit } = validateListJoinRequests(request)
  const standing = tables.standing(organizationId, actorAccountId, INVITE)
  if (typeof standing === 'string') return { outcome: standing }
  const members = tables.members.get(organizationId)
  const pending = [...tables.joinRequests.values()]
    .filter((row) => row.organizationId === organizationId && members?.has(row.accountId) !== true)
    .sort(newestFirst)
    .slice(0, limit)
    .map(copy)
  return { outcome: 'listed', joinRequests: Object.freeze(pending) }
}

export async function joinRequestsOf(
  tables: MemoryOrganizationTables,
  accountId: string,
): Promise<readonly JoinRequest[]> {
  const id = requireMemberAccountId(accountId)
  const own = [...tables.joinRequests.values()]
    .filter((row) => row.accountId === id)
    .sort(newestFirst)
    .slice(0, MAX_OWN_JOIN_REQUESTS)
    .map(copy)
  return Object.freeze(own)
}

export async function decideJoinRequest(
  tables: MemoryOrganizationTables,
  joinRole: string,
  request: DecideJoinRequestRequest,
): Promise<DecideJoinRequestOutcome> {
  const { organizationId, requestId, actorAccountId, decision, now } = validateDecideJoinRequest(request)
  return tables.queue.run(async (): Promise<DecideJoinRequestOutcome> => {
    const standing = tables.standing(organizationId, actorAccountId, INVITE)
    if (typeof standing === 'string') return { outcome: standing }
    const row = tables.joinRequests.get(requestId)
    if (row === undefined || row.organizationId !== organizationId) return { outcome: 'not-found' }
    if (decision === 'decline') {
      tables.joinRequests.delete(requestId)
      return { outcome: 'declined', joinRequest: copy(row) }
    }
    if (!tables.roles.atOrBelow(standing.role, joinRole)) return { outcome: 'rank-exceeded' }
    tables.joinRequests.delete(requestId)
    if (tables.members.get(organizationId)?.has(row.accountId) === true) return { outcome: 'already-member' }
    const membership = tables.addMember(organizationId, row.accountId, joinRole, now)
    await tables.announce([row.accountId])
    return { outcome: 'approved', joinRequest: copy(row), membership }
  })
}

export async function withdrawJoinRequest(
  tables: MemoryOrganizationTables,
  request: WithdrawJoinRequestRequest,
): Promise<WithdrawJoinRequestOutcome> {
  const { organizationId, requestId, accountId } = validateWithdrawJoinRequest(request)
  return tables.queue.run((): WithdrawJoinRequestOutcome => {
    const row = tables.joinRequests.get(requestId)
    if (row === undefined || row.organizationId !== organizationId || row.accountId !== accountId) {
      return { outcome: 'not-found' }
    }
    tables.joinRequests.delete(requestId)
    return { outcome: 'withdrawn' }
  })
}
