// Joining by verified domain, end to end (docs/organization-domains.md): over Postgres stores in a
// disposable database, a real DNS server on loopback and every mail drained over SMTP to a server in this
// process. An owner claims and verifies acme.example in automatic-invitation mode; a person signs up with
// an address at it and verifies it; AccountEmail tells AutomaticInvitations, whose invitation mail arrives;
// only the person's accepting it makes a member. An unverified address and a subdomain get nothing.
import { randomBytes } from 'node:crypto'
import { AccountEmail } from '@portcullis/core/account-email'
import { CodeKeyRing } from '@portcullis/core/codes'
import {
  LocalAccounts,
  PASSWORD_ACCEPTED,
  type SecurityEvent,
  type SessionSignIn,
} from '@portcullis/core/local-accounts'
import { MailOutboxDrain } from '@portcullis/core/mail'
import {
  AutomaticInvitations,
  createOrganizationDomains,
  systemDnsTxtResolver,
} from '@portcullis/core/organization-domains'
import { OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { StepUpService } from '@portcullis/core/step-up'
import { freeMailDomains } from '@portcullis/http/organizations'
import {
  PostgresAccountStore,
  PostgresMailOutbox,
  PostgresNotificationSettings,
  PostgresOneTimeCodeStore,
  PostgresOrganizationDomainStore,
  PostgresOrganizationStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import { startTestDnsServer } from '@portcullis/test-support/dns-server'
import type { AddressObject } from 'mailparser'
import { afterAll, describe, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { startExampleSmtp } from '../../test/support/example-mail.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'

const client = await exampleDatabase()
const dns = await startTestDnsServer()
afterAll(() => dns.close())
const smtp = await startExampleSmtp('team@example.com')

// Tests only: a hasher without cost (an application uses @portcullis/argon2), fresh keys.
const hasher = plainHasher
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})
const PASSWORD = 'a long and unusual passphrase'
const events: SecurityEvent[] = []
const accounts = new PostgresAccountStore({ client })
const rateLimits = new PostgresRateLimitStore({ client })
const outbox = new PostgresMailOutbox({ client })
const organizations = new PostgresOrganizationStore({ client })
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions: new PostgresSessionStore({ client }),
  rateLimits,
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: 'https://app.example',
  registration: 'open',
  signInWith: ['username', 'email'],
  events: (event) => {
    events.push(event)
  },
})
const invitations = new OrganizationInvitations({
  invitations: organizations,
  organizations,
  memberships: organizations,
  keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
  protector,
  publicOrigin: 'https://app.example',
})
const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client }) })
const drain = new MailOutboxDrain({ store: outbox, mailer: smtp.mailer, protector })

// #region wiring
const domains = createOrganizationDomains({
  store: new PostgresOrganizationDomainStore({ client }),
  freeMailDomains: await freeMailDomains(),
  resolver: systemDnsTxtResolver({ servers: [dns.server], timeoutMs: 2_000 }),
})
const automatic = new AutomaticInvitations({
  domains,
  invitations, // its mail goes through the outbox, in the invitation's transaction
  stores: organizations, // memberships and pending invitations
  accounts, // the address is read back: it must be the account's, verified
})
const accountEmail = new AccountEmail({
  accounts,
  local,
  codes: new PostgresOneTimeCodeStore({ client }),
  outbox,
  notificationSettings: new PostgresNotificationSettings({ client }),
  protector,
  codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
  publicOrigin: 'https://app.example',
  rateLimits,
  signInWith: ['username', 'email'],
  stepUp, // adding an address and changing it spend an email-change step-up
  // Told after every verification commits (sign-up, an added address, an email change). A failure never
  // fails the verification: it is the security event email.address_verified_listener_failed.
  addressVerified: automatic,
})
// #endregion wiring

/** What the application's drain does after the commit: the mails sent over SMTP, as received. */
async function delivered(): Promise<{ to: string; link: URL | null }[]> {
  return (await smtp.delivered(drain)).map((mail) => {
    const to = (mail.to as AddressObject | undefined)?.value[0]?.address ?? ''
    const link = /https:\/\/app\.example\/\S+\?flow=\S+#code=[A-Za-z0-9]+/.exec(mail.text ?? '')
    return { to, link: link === null ? null : new URL(link[0]) }
  })
}
const codeOf = (link: URL | null | undefined) => new URLSearchParams(link?.hash.slice(1)).get('code') ?? ''
const isInvitation = (mail: { link: URL | null }) =>
  mail.link?.pathname.startsWith('/organizations/invitations/') === true

/** Signs up with `address` and, unless `verify` is false, verifies it with the code of the mail. */
async function signUp(address: string, verify = true) {
  const { flow } = await accountEmail.signUp({ email: address, password: PASSWORD })
  const [sent, ...others] = await delivered()
  expect(others).toEqual([])
  expect(sent?.to).toBe(address)
  if (!verify || sent === undefined) return { accountId: null }
  return accountEmail.verifyEmail({ flow, code: codeOf(sent.link) })
}

describe('joining by verified domain', () => {
  it('a new person verifying an address at the domain is invited, and is a member only once they accept', async () => {
    const owner = await signUp('owner@example.com')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId ?? '',
      now: new Date(),
    })
    // #region claim
    const claimed = await domains.claim({
      organizationId: 'acme',
      domain: 'acme.example',
      enrollment: 'automatic-invitation',
      managerAccountId: owner.accountId ?? '', // the verified principal: invitations go in their name
    })
    dns.setTxt(claimed.recordName, [claimed.recordValue]) // what the organization's DNS administrator does
    await domains.verify({ organizationId: 'acme', id: claimed.claim.id })
    // #endregion claim

    // #region join
    // 1. Ada signs up with ada@acme.example and verifies it with the code mailed to her.
    const { flow } = await accountEmail.signUp({ email: 'ada@acme.example', password: PASSWORD })
    const [verification] = await delivered()
    const ada = await accountEmail.verifyEmail({ flow, code: codeOf(verification?.link) })
    // 2. The verification told AutomaticInvitations: an invitation mail, in Acme's owner's name, is sent.
    const [invitation] = await delivered() // to ada@acme.example, /organizations/invitations/accept?flow=...
    // Ada is not a member yet: affiliation alone grants nothing.
    expect(await organizations.membershipsOf(ada.accountId)).toEqual([])
    // 3. Ada, signed in, accepts it with the link's flow and code: now she is a member.
    const membership = await invitations.accept({
      invitationId: invitation?.link?.searchParams.get('flow') ?? '',
      code: codeOf(invitation?.link),
      accountId: ada.accountId,
    })
    // { organizationId: 'acme', accountId: ada.accountId, role: 'member', ... }
    // #endregion join
    expect(verification?.to).toBe('ada@acme.example')
    expect(invitation).toBeDefined()
    expect(invitation?.to).toBe('ada@acme.example')
    expect(invitation !== undefined && isInvitation(invitation)).toBe(true)
    expect(membership).toMatchObject({ organizationId: 'acme', accountId: ada.accountId, role: 'member' })
    expect((await organizations.membershipsOf(ada.accountId)).map((each) => each.organizationId)).toEqual([
      'acme',
    ])
    expect(events.filter((event) => event.type === 'email.address_verified_listener_failed')).toEqual([])
  })

  it('an existing account adding and verifying an address at the domain is invited too', async () => {
    const carol = await signUp('carol@example.com')
    const signIn = (await local.login(
      { username: 'carol@example.com', password: PASSWORD },
      { transport: 'session' },
    )) as SessionSignIn
    const epoch = async () => (await accounts.getAccount(carol.accountId ?? ''))?.securityEpoch ?? 0
    const session = {
      accountId: carol.accountId ?? '',
      securityEpoch: await epoch(),
      sessionHandle: signIn.handle,
    }
    const stepUpToken = (
      await stepUp.issue({
        accountId: session.accountId,
        purpose: 'email-change',
        securityEpoch: session.securityEpoch,
        sessionBinding: signIn.handle,
      })
    ).reveal()
    const added = await accountEmail.addAddress({
      session,
      stepUpToken,
      body: { email: 'carol@acme.example' },
      credentials: { sessionHandle: signIn.handle, securityEpoch: session.securityEpoch },
    })
    // Adding tells nothing: only the address-added notice and the code go out, no invitation.
    const sent = await delivered()
    expect(sent.filter(isInvitation)).toEqual([])
    const code = sent.find((mail) => mail.to === 'carol@acme.example')
    await accountEmail.verifyEmail({ flow: added.flow, code: codeOf(code?.link) })
    const [invitation, ...more] = await delivered()
    expect(more).toEqual([])
    expect(invitation?.to).toBe('carol@acme.example')
    expect(invitation !== undefined && isInvitation(invitation)).toBe(true)
    expect(await organizations.membershipsOf(session.accountId)).toEqual([])
  })

  it('an unverified address, a subdomain and another domain get no invitation', async () => {
    const bob = await signUp('bob@acme.example', false)
    expect(bob.accountId).toBeNull()
    const dan = await signUp('dan@mail.acme.example')
    const eve = await signUp('eve@acme-corp.example')
    // Nothing more is in the outbox: no invitation for any of them.
    expect(await delivered()).toEqual([])
    for (const accountId of [dan.accountId, eve.accountId]) {
      expect(await organizations.membershipsOf(accountId ?? '')).toEqual([])
    }
    const acme = await organizations.listInvitations({
      organizationId: 'acme',
      actorAccountId: (await accounts.findAccountByVerifiedEmail('owner@example.com'))?.accountId ?? '',
      now: new Date(),
    })
    // Pending at Acme: only Carol's (the earlier case); Ada accepted hers, and nobody else was invited.
    expect(acme.outcome === 'listed' ? acme.invitations.map((each) => each.address) : acme).toEqual([
      'carol@acme.example',
    ])
  })

  it('telling AutomaticInvitations again about a member sends nothing', async () => {
    // At least once: a repeated call (an application calling it again at sign-in) sends nothing more.
    const ada = await accounts.findAccountByVerifiedEmail('ada@acme.example')
    const again = await automatic.addressVerified({
      accountId: ada?.accountId ?? '',
      address: 'ada@acme.example',
    })
    expect(again.map((result) => result.outcome)).toEqual(['already-member'])
    expect(await delivered()).toEqual([])
  })
})
