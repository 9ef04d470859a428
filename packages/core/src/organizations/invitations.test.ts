import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import { CodeKeyRing } from '../codes/code-keys.js'
import { MemoryRateLimitStore } from '../local-accounts/rate-limits/memory-rate-limit-store.js'
import { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { InvitationMessage } from '../mail/messages.js'
import { openOutboxMessage } from '../mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { OrganizationInvitations, type OrganizationInvitationsOptions } from './invitations.js'
import { MemoryOrganizationStore } from './memory-store.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const T0 = Date.parse('2031-01-01T00:00:00Z')

async function world(options: Partial<OrganizationInvitationsOptions> = {}) {
  const outbox = new MemoryMailOutbox()
  const store = new MemoryOrganizationStore({ outbox })
  const accounts = new MemoryAccountStore({ cascade: [store] })
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  let clock = T0
  const invitations = new OrganizationInvitations({
    invitations: store,
    organizations: store,
    memberships: store,
    keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    protector,
    publicOrigin: 'https://app.example',
    clock: () => clock,
    ...options,
  })
  const account = async (address?: string, verified = true) => {
    const accountId = randomUUID()
    const now = new Date(clock)
    await accounts.createAccount({ accountId, username: `u-${accountId}`, passwordHash: HASH, now })
    if (address !== undefined) {
      await accounts.addEmailAddress({ accountId, address, now })
      if (verified) await accounts.verifyEmailAddress({ accountId, address, now })
    }
    return accountId
  }
  const seen = new Set<string>()
  const lastMail = async (): Promise<InvitationMessage> => {
    const row = outbox.pending().find((entry) => !seen.has(entry.id))
    if (row === undefined) throw new Error('no new mail')
    seen.add(row.id)
    return (await openOutboxMessage(protector, row)) as InvitationMessage
  }
  const owner = await account()
  await store.createOrganization({
    organizationId: 'acme',
    name: 'Acme',
    ownerAccountId: owner,
    now: new Date(clock),
  })
  return { store, invitations, account, lastMail, owner, outbox, advance: (ms: number) => (clock += ms) }
}

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  )

describe('OrganizationInvitations', () => {
  it('mails the code once (sealed in the outbox), never returns it, and the verified invitee accepts once', async () => {
    const { invitations, account, lastMail, owner, store } = await world()
    const invitation = await invitations.invite({
      organizationId: 'acme',
      inviterAccountId: owner,
      address: ' Bob@Example.COM ',
      role: 'admin',
    })
    expect(invitation.address).toBe('Bob@example.com')
    expect(JSON.stringify(invitation)).not.toMatch(/digest|code/i)
    expect(invitation.expiresAt.getTime() - invitation.createdAt.getTime()).toBe(7 * 86_400_000)
    const mail = await lastMail()
    expect(mail).toMatchObject({
      kind: 'invitation',
      organizationName: 'Acme',
      validForDays: 7,
      to: { address: 'Bob@example.com' },
    })
    const link = new URL(mail.link)
    expect(link.origin).toBe('https://app.example')
    expect(link.searchParams.get('flow')).toBe(invitation.invitationId)
    expect(new URLSearchParams(link.hash.slice(1)).get('code')).toBe(mail.code)
    const bob = await account('Bob@example.com')
    const membership = await invitations.accept({
      invitationId: invitation.invitationId,
      code: mail.code.toLowerCase(),
      accountId: bob,
    })
    expect(membership).toMatchObject({ organizationId: 'acme', accountId: bob, role: 'admin' })
    expect(
      await codeOf(
        invitations.accept({ invitationId: invitation.invitationId, code: mail.code, accountId: bob }),
      ),
    ).toBe('organizations.not_found')
    expect((await store.membershipsOf(bob)).map((item) => item.role)).toEqual(['admin'])
  })

  it('refuses someone else, an unverified holder, a wrong code, and an expired invitation with stable codes', async () => {
    const { invitations, account, lastMail, owner, advance } = await world()
    const invitation = await invitations.invite({
      organizationId: 'acme',
      inviterAccountId: owner,
      address: 'carol@example.com',
      role: 'member',
      lifetimeDays: 1,
    })
    const { code } = await lastMail()
    const accept = (accountId: string, presented = code) =>
      codeOf(invitations.accept({ invitationId: invitation.invitationId, code: presented, accountId }))
    expect(await accept(await account('mallory@example.com'))).toBe('organizations.address_mismatch')
    expect(await accept(await account('carol@example.com', false))).toBe('organizations.address_mismatch')
    const carol = await account('carol@example.com')
    expect(await accept(carol, 'AAAAAAAAAAAA')).toBe('organizations.not_found')
    expect(await accept(carol, '<script>')).toBe('organizations.not_found')
    advance(86_400_000)
    expect(await accept(carol)).toBe('organizations.invitation_expired')
  })

  it('refuses a role above the inviter, a lifetime outside 1 to 30 days, and a malformed address', async () => {
    const { invitations, owner, account, lastMail } = await world()
    const issued = await invitations.invite({
      organizationId: 'acme',
      inviterAccountId: owner,
      address: 'admin@example.com',
      role: 'admin',
    })
    const admin = await account('admin@example.com')
    await invitations.accept({
      invitationId: issued.invitationId,
      code: (await lastMail()).code,
      accountId: admin,
    })
    expect(
      await codeOf(
        invitations.invite({
          organizationId: 'acme',
          inviterAccountId: admin,
          address: 'x@example.com',
          role: 'owner',
        }),
      ),
    ).toBe('organizations.rank_exceeded')
    await expect(
      invitations.invite({
        organizationId: 'acme',
        inviterAccountId: admin,
        address: 'x@example.com',
        role: 'admin',
      }),
    ).resolves.toMatchObject({ role: 'admin' })
    for (const lifetimeDays of [0, 31, 1.5]) {
      expect(
        await codeOf(
          invitations.invite({
            organizationId: 'acme',
            inviterAccountId: owner,
            address: 'x@example.com',
            role: 'member',
            lifetimeDays,
          }),
        ),
      ).toBe('organizations.invalid_input')
    }
    expect(
      await codeOf(
        invitations.invite({
          organizationId: 'acme',
          inviterAccountId: owner,
          address: 'not an address',
          role: 'member',
        }),
      ),
    ).toBe('organizations.invalid_input')
    expect(
      await codeOf(
        invitations.invite({
          organizationId: 'acme',
          inviterAccountId: owner,
          address: 'x@example.com',
          role: 'emperor',
        }),
      ),
    ).toBe('organizations.invalid_input')
  })

  it('limits per inviter and per organization; a stranger spends only its own window', async () => {
    const rateLimits = new MemoryRateLimitStore()
    const { invitations, owner, account } = await world({
      rateLimits,
      perInviter: { limit: 2, windowSeconds: 3600 },
      perOrganization: { limit: 3, windowSeconds: 86_400 },
    })
    const stranger = await account()
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const code = await codeOf(
        invitations.invite({
          organizationId: 'acme',
          inviterAccountId: stranger,
          address: `s${attempt}@example.com`,
          role: 'member',
        }),
      )
      expect(code).toBe(attempt < 2 ? 'organizations.not_found' : 'organizations.rate_limited')
    }
    await invitations.invite({
      organizationId: 'acme',
      inviterAccountId: owner,
      address: 'a@example.com',
      role: 'member',
    })
    await invitations.invite({
      organizationId: 'acme',
      inviterAccountId: owner,
      address: 'b@example.com',
      role: 'member',
    })
    const refused = await invitations
      .invite({ organizationId: 'acme', inviterAccountId: owner, address: 'c@example.com', role: 'member' })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'organizations.rate_limited' })
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0)
  })

  it('resend mails a new code and the old one stops working', async () => {
    const { invitations, owner, account, lastMail } = await world()
    const invitation = await invitations.invite({
      organizationId: 'acme',
      inviterAccountId: owner,
      address: 'dan@example.com',
      role: 'member',
    })
    const first = await lastMail()
    await invitations.resend({
      organizationId: 'acme',
      invitationId: invitation.invitationId,
      actorAccountId: owner,
      lifetimeDays: 2,
    })
    const second = await lastMail()
    expect(second.code).not.toBe(first.code)
    expect(second.validForDays).toBe(2)
    const dan = await account('dan@example.com')
    expect(
      await codeOf(
        invitations.accept({ invitationId: invitation.invitationId, code: first.code, accountId: dan }),
      ),
    ).toBe('organizations.not_found')
    await expect(
      invitations.accept({ invitationId: invitation.invitationId, code: second.code, accountId: dan }),
    ).resolves.toMatchObject({ role: 'member' })
  })
})
