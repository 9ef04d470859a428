import { generateFlowId } from '@portcullis/core/codes'
import type { JoinRequest, JoinRequestStore, OrganizationStores } from '@portcullis/core/organizations'
import { newAddress, type OrganizationStoresFixture, T0 } from './fixture.js'

/** The organization stores together with their requests to join (one schema, one transaction). */
export type JoinRequestStores = OrganizationStores & JoinRequestStore

/** One case's stores: the organization suite's fixture, whose stores also hold requests to join. */
export interface JoinRequestStoresFixture extends OrganizationStoresFixture {
  readonly store: JoinRequestStores
  /** A second instance over the same data (another pool); `store` if omitted. */
  readonly peer?: JoinRequestStores
}

export type JoinRequestStoresFactory = () => JoinRequestStoresFixture | Promise<JoinRequestStoresFixture>

/** A request of `accountId`, resting on `address`, to join the organization. */
export function newJoinRequest(
  organizationId: string,
  accountId: string,
  address: string,
  createdAt: Date = T0,
): JoinRequest {
  return { requestId: generateFlowId(), organizationId, accountId, address, createdAt }
}

/** A fresh account holding a verified address (unverified with `verified: false`); its id and address. */
export async function asker(
  fixture: JoinRequestStoresFixture,
  options: { readonly verified?: boolean } = {},
): Promise<{ accountId: string; address: string }> {
  const address = newAddress()
  const accountId = await fixture.createAccount({ address, ...options })
  return { accountId, address }
}

/** Stores a request of a fresh verified account; the request. */
export async function pendingRequest(
  fixture: JoinRequestStoresFixture,
  organizationId: string,
  createdAt: Date = T0,
): Promise<JoinRequest> {
  const { accountId, address } = await asker(fixture)
  const joinRequest = newJoinRequest(organizationId, accountId, address, createdAt)
  const answer = await fixture.store.requestToJoin({ joinRequest, maxPendingPerOrganization: 100 })
  if (answer.outcome !== 'requested') throw new Error(`join request fixture: ${answer.outcome}`)
  return joinRequest
}

export async function pendingIds(
  store: JoinRequestStore,
  organizationId: string,
  actorAccountId: string,
): Promise<readonly string[]> {
  const listed = await store.listJoinRequests({ organizationId, actorAccountId, limit: 1000 })
  if (listed.outcome !== 'listed') throw new Error(`listing answered ${listed.outcome}`)
  return listed.joinRequests.map((request) => request.requestId)
}
