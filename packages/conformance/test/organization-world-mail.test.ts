import { afterEach, describe, expect, it, vi } from 'vitest'
import { acceptBodyOf, organizationBase } from '../src/adapters/organization-world.js'

// The organization cases read the mail an invitation or a resend wrote with `mailTo`. Mail written in
// the same millisecond has the same `createdAt`, and the outbox orders such rows by their random ids:
// the newest mail must be the one written last, not the one that sorts last.
describe('the organization world reads the mail written last', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('a resend in the same millisecond as its invitation: mailTo is the resend, every time', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-05T10:00:00Z') })
    const world = organizationBase()
    const now = new Date()
    await world.accounts.createAccount({ accountId: 'olive', username: 'olive', passwordHash: 'x', now })
    await world.organization('acme', 'olive')
    for (let round = 0; round < 24; round += 1) {
      const address = `carol${round}@people.example`
      const invited = await world.invitations.invite({
        organizationId: 'acme',
        inviterAccountId: 'olive',
        address,
        role: 'member',
      })
      const first = acceptBodyOf(await world.mailTo(address))
      await world.invitations.resend({
        organizationId: 'acme',
        invitationId: invited.invitationId,
        actorAccountId: 'olive',
      })
      const second = acceptBodyOf(await world.mailTo(address))
      expect(second.invitationId).toBe(invited.invitationId)
      expect(second.code).not.toBe(first.code)
    }
  })
})
