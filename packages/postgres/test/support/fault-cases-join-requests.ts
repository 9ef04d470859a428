import { randomUUID } from 'node:crypto'
import { generateFlowId } from '@portcullis/core/codes'
import { PostgresAccountStore, type PostgresClient, PostgresOrganizationStore } from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'
import { createAccount } from './organizations.js'

/**
 * Cut case for requests to join: an approval removes the request and writes the membership in one
 * transaction; parked on the requests table (after the organization is locked and the manager's role
 * read), a cut leaves the request pending and nobody a member, never one without the other.
 */
export function joinRequestFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, one } = kit
  const outcome = async (requestId: string, organizationId: string, accountId: string) => {
    const request = await one<{ id: string }>(
      'select request_id as id from portcullis_join_requests where request_id = $1',
      [requestId],
    )
    const member = await one<{ role: string }>(
      'select role from portcullis_memberships where organization_id = $1 and account_id = $2',
      [organizationId, accountId],
    )
    if (request === undefined && member !== undefined) return 'written' as const
    if (request !== undefined && member === undefined) return 'untouched' as const
    return partial(`request ${request ? 'pending' : 'gone'}, membership ${member ? 'written' : 'absent'}`)
  }
  return [
    {
      name: 'join request approved with its membership',
      table: 'portcullis_join_requests',
      multiStatement: true,
      async prepare(client: PostgresClient) {
        const setup = new PostgresOrganizationStore({ client: db.client })
        const accounts = new PostgresAccountStore({ client: db.client })
        const ownerId = await createAccount(accounts)
        const address = `asker-${randomUUID()}@fault.example`
        const askerId = await createAccount(accounts, { address })
        const organizationId = `org-${randomUUID()}`
        const now = new Date()
        await setup.createOrganization({ organizationId, name: 'Fault', ownerAccountId: ownerId, now })
        const requestId = generateFlowId()
        const asked = await setup.requestToJoin({
          joinRequest: { requestId, organizationId, accountId: askerId, address, createdAt: now },
          maxPendingPerOrganization: 10,
        })
        if (asked.outcome !== 'requested') throw new Error(`join request fixture: ${asked.outcome}`)
        const store = new PostgresOrganizationStore({ client })
        return {
          run: () =>
            store.decideJoinRequest({
              organizationId,
              requestId,
              actorAccountId: ownerId,
              decision: 'approve',
              now,
            }),
          check: () => outcome(requestId, organizationId, askerId),
        }
      },
    },
  ]
}
