import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../../src/accounts/memory-store.js'
import { MemoryOneTimeCodeStore } from '../../src/codes/memory-store.js'
import { MemoryMailOutbox } from '../../src/mail/memory-outbox.js'
import { openOutboxMessage } from '../../src/mail/outbox-seal.js'
import { accountEmailWorld, PASSWORD } from '../support/account-email-world.js'

const flowOf = (link: string | undefined) => new URL(link ?? 'https://x.invalid').searchParams.get('flow')
const codeOf = (link: string | undefined) =>
  new URLSearchParams(new URL(link ?? 'https://x.invalid').hash.slice(1)).get('code')

describe('sign-up with verification', () => {
  it('creates an account with the address unverified and mails a code whose link is on the public origin', async () => {
    const world = await accountEmailWorld()
    const { flow } = await world.email.signUp({ email: ' Alice@Example.COM ', password: PASSWORD })
    const message = await world.lastMail('verification', 'Alice@example.com')
    expect(message?.code).toMatch(/^\d{6}$/)
    expect(message?.link?.startsWith('https://app.example/verify-email?flow=')).toBe(true)
    expect(flowOf(message?.link)).toBe(flow)
    expect(codeOf(message?.link)).toBe(message?.code)
    const owner = await world.accounts.findAccountByVerifiedEmail('Alice@example.com')
    expect(owner).toBeNull()
    // an unverified address signs nobody in
    await expect(
      world.local.login({ username: 'Alice@example.com', password: PASSWORD }, { transport: 'session' }),
    ).rejects.toMatchObject({
      code: 'local.invalid_credentials',
    })
    const { accountId } = await world.email.verifyEmail({ flow, code: message?.code })
    expect((await world.accounts.findAccountByVerifiedEmail('Alice@example.com'))?.accountId).toBe(accountId)
    const signIn = await world.local.login(
      { username: 'Alice@example.com', password: PASSWORD },
      { transport: 'session' },
    )
    expect(signIn).toMatchObject({ transport: 'session', accountId })
    expect(world.events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['sign_up.created', 'email.verified']),
    )
  })

  it('answers an address another account verified with the same body, creates nothing and mails a notice instead of a code', async () => {
    const world = await accountEmailWorld()
    const { accountId } = await world.verifiedAccount('bob@example.com')
    const seen = new Set(world.outbox.pending().map((entry) => entry.id))
    const again = await world.email.signUp({ email: 'bob@example.com', password: 'another long passphrase' })
    const fresh = await world.email.signUp({
      email: 'carol@example.com',
      password: 'another long passphrase',
    })
    expect(Object.keys(again)).toEqual(Object.keys(fresh))
    expect(again.flow.length).toBe(fresh.flow.length)
    const added = await Promise.all(
      world.outbox
        .pending()
        .filter((entry) => !seen.has(entry.id))
        .map((entry) => openOutboxMessage(world.protector, entry)),
    )
    expect(added.map((message) => [message.kind, message.to.address]).sort()).toEqual([
      ['existing-account-sign-up', 'bob@example.com'],
      ['verification', 'carol@example.com'],
    ])
    const notice = added.find((message) => message.kind === 'existing-account-sign-up')
    expect(notice).not.toHaveProperty('code')
    expect(notice?.kind === 'existing-account-sign-up' && notice.resetLink).toBe(
      'https://app.example/reset-password',
    )
    // still one account holds bob's address, and it is bob's
    expect((await world.accounts.findAccountByVerifiedEmail('bob@example.com'))?.accountId).toBe(accountId)
    // the flow handle of the notice verifies nothing
    await expect(world.email.verifyEmail({ flow: again.flow, code: '000000' })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
  })

  it('screens the password and refuses bad input before anything is written', async () => {
    const world = await accountEmailWorld()
    await expect(
      world.email.signUp({ email: 'dan@example.com', password: 'password1' }),
    ).rejects.toMatchObject({
      code: 'local.password_screened',
    })
    await expect(world.email.signUp({ email: 'not an address', password: PASSWORD })).rejects.toMatchObject({
      code: 'email.invalid_address',
    })
    await expect(
      world.email.signUp({ email: 'dan@example.com', password: PASSWORD, username: 'dan' }),
    ).rejects.toMatchObject({ code: 'account_email.invalid_input' })
    expect(world.outbox.pending()).toHaveLength(0)
  })

  it('is closed when registration is closed, and needs a valid invite under invite-only (an invalid one creates and sends nothing, with the same answer)', async () => {
    const closed = await accountEmailWorld({ local: { registration: 'closed' } })
    await expect(closed.email.signUp({ email: 'a@example.com', password: PASSWORD })).rejects.toMatchObject({
      code: 'account_email.sign_up_closed',
    })
    const invite = await accountEmailWorld({ local: { registration: 'invite-only' } })
    await expect(invite.email.signUp({ email: 'a@example.com', password: PASSWORD })).rejects.toMatchObject({
      code: 'account_email.invalid_input',
    })
    const wrong = await invite.email.signUp({
      email: 'a@example.com',
      password: PASSWORD,
      inviteCode: 'x'.repeat(43),
    })
    expect(typeof wrong.flow).toBe('string')
    expect(invite.outbox.pending()).toHaveLength(0)
    const { code } = await invite.local.issueInvite()
    await invite.email.signUp({ email: 'a@example.com', password: PASSWORD, inviteCode: code })
    expect((await invite.mail()).map((message) => message.kind)).toEqual(['verification'])
  })

  it('limits mail per address, whether or not the address has an account', async () => {
    const world = await accountEmailWorld({
      email: { limits: { perAddress: { limit: 2, windowSeconds: 3600 } } },
    })
    await world.verifiedAccount('erin@example.com')
    await world.email.signUp({ email: 'erin@example.com', password: PASSWORD })
    await expect(world.email.signUp({ email: 'erin@example.com', password: PASSWORD })).rejects.toMatchObject(
      {
        code: 'account_email.rate_limited',
        retryAfterSeconds: expect.any(Number),
      },
    )
    await world.email.signUp({ email: 'frank@example.com', password: PASSWORD })
    await world.email.signUp({ email: 'frank@example.com', password: PASSWORD })
    await expect(
      world.email.signUp({ email: 'frank@example.com', password: PASSWORD }),
    ).rejects.toMatchObject({
      code: 'account_email.rate_limited',
    })
  })
})

describe('email verification', () => {
  it('consumes a code once: a replay, a wrong code and a tampered flow handle are one answer', async () => {
    const world = await accountEmailWorld()
    const { flow } = await world.email.signUp({ email: 'gail@example.com', password: PASSWORD })
    const code = (await world.lastMail('verification', 'gail@example.com'))?.code as string
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
    await expect(world.email.verifyEmail({ flow, code: wrong })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    const tampered = `${flow.slice(0, -2)}${flow.endsWith('AA') ? 'BB' : 'AA'}`
    await expect(world.email.verifyEmail({ flow: tampered, code })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    await world.email.verifyEmail({ flow, code })
    await expect(world.email.verifyEmail({ flow, code })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
  })

  it('deletes the code at the attempt limit: the right code then fails too', async () => {
    const world = await accountEmailWorld({ email: { maxAttempts: 3 } })
    const { flow } = await world.email.signUp({ email: 'hal@example.com', password: PASSWORD })
    const code = (await world.lastMail('verification', 'hal@example.com'))?.code as string
    for (let guess = 0; guess < 3; guess += 1) {
      const wrong = String((Number(code) + 1 + guess) % 1_000_000).padStart(6, '0')
      await expect(world.email.verifyEmail({ flow, code: wrong })).rejects.toMatchObject({
        code: 'account_email.invalid_code',
      })
    }
    await expect(world.email.verifyEmail({ flow, code })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    expect(
      world.events.some(
        (event) => event.type === 'email.verification_failed' && event.reason === 'exhausted',
      ),
    ).toBe(true)
  })

  it('refuses an expired code (24 h by default) and a code of another purpose', async () => {
    const world = await accountEmailWorld()
    const { flow } = await world.email.signUp({ email: 'ivy@example.com', password: PASSWORD })
    const code = (await world.lastMail('verification', 'ivy@example.com'))?.code as string
    // A reset flow's handle and code do not verify an address, nor the other way round.
    await world.verifiedAccount('jay@example.com')
    const reset = await world.email.requestPasswordReset({ email: 'jay@example.com' })
    const resetCode = (await world.lastMail('password-reset', 'jay@example.com'))?.code as string
    await expect(world.email.verifyEmail({ flow: reset.flow, code: resetCode })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    await expect(
      world.email.resetPassword({ flow, code, password: 'a fresh long passphrase' }),
    ).rejects.toMatchObject({ code: 'account_email.invalid_code' })
    world.clock.advance(24 * 3600 * 1000 + 1)
    await expect(world.email.verifyEmail({ flow, code })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
  })

  it('answers taken when another account verified the address first; concurrent verifies of one code have one winner', async () => {
    const world = await accountEmailWorld()
    const first = await world.email.signUp({ email: 'kim@example.com', password: PASSWORD })
    const firstCode = (await world.lastMail('verification', 'kim@example.com'))?.code as string
    const second = await world.email.signUp({ email: 'kim@example.com', password: 'another long passphrase' })
    const secondCode = (await world.lastMail('verification', 'kim@example.com'))?.code as string
    const race = await Promise.allSettled([
      world.email.verifyEmail({ flow: first.flow, code: firstCode }),
      world.email.verifyEmail({ flow: first.flow, code: firstCode }),
    ])
    expect(race.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    await expect(world.email.verifyEmail({ flow: second.flow, code: secondCode })).rejects.toMatchObject({
      code: 'account_email.address_taken',
    })
  })

  it('resends a new code for the flow (the old one stops working), and the flow of a known address gets its notice again', async () => {
    const world = await accountEmailWorld()
    const { flow } = await world.email.signUp({ email: 'lee@example.com', password: PASSWORD })
    const old = (await world.lastMail('verification', 'lee@example.com'))?.code as string
    const next = await world.email.resendVerification({ flow })
    const fresh = (await world.lastMail('verification', 'lee@example.com'))?.code as string
    await expect(world.email.verifyEmail({ flow, code: old })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
    await world.email.verifyEmail({ flow: next.flow, code: fresh })

    const known = await world.email.signUp({ email: 'lee@example.com', password: 'another long passphrase' })
    const resent = await world.email.resendVerification({ flow: known.flow })
    expect(resent.flow.length).toBe(next.flow.length)
    const notices = (await world.mail()).filter((message) => message.kind === 'existing-account-sign-up')
    expect(notices).toHaveLength(2)
  })
})

describe('sign-up when a store fails', () => {
  it('answers account_email.unavailable (retry later) and writes nothing when the account store is down', async () => {
    const base = await accountEmailWorld()
    const created: string[] = []
    const accounts = new Proxy(base.accounts, {
      get(target, property) {
        const value = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        if (property !== 'createAccount') return value.bind(target)
        return async (request: { accountId: string }) => {
          created.push(request.accountId)
          throw new Error('connection refused')
        }
      },
    })
    const world = await accountEmailWorld({ email: { accounts, local: base.local } })
    await expect(world.email.signUp({ email: 'down@example.com', password: PASSWORD })).rejects.toMatchObject(
      { code: 'account_email.unavailable', retryAfterSeconds: 1 },
    )
    expect(created).toHaveLength(1)
    expect(await base.accounts.getAccount(created[0] as string)).toBeNull()
    expect(world.outbox.pending()).toHaveLength(0)
    expect(base.events.filter((event) => event.type === 'sign_up.created')).toHaveLength(0)
  })

  it('keeps no account, address or mail when the code cannot be stored (one step: all or nothing)', async () => {
    const outbox = new MemoryMailOutbox()
    // Room for one code: the second sign-up's code is refused inside the account's own step.
    const codes = new MemoryOneTimeCodeStore({ outbox, capacity: 1 })
    const accounts = new MemoryAccountStore({ outbox, cascade: [codes] })
    const base = await accountEmailWorld()
    const created: string[] = []
    const watched = new Proxy(accounts, {
      get(target, property) {
        const value = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        if (property !== 'createAccount') return value.bind(target)
        return async (request: { accountId: string }) => {
          created.push(request.accountId)
          return value.call(target, request)
        }
      },
    })
    const world = await accountEmailWorld({ email: { accounts: watched, codes, outbox, local: base.local } })
    await world.email.signUp({ email: 'first@example.com', password: PASSWORD })
    expect(outbox.pending()).toHaveLength(1)
    await expect(
      world.email.signUp({ email: 'second@example.com', password: PASSWORD }),
    ).rejects.toMatchObject({ code: 'account_email.unavailable' })
    expect(created).toHaveLength(2)
    const [first, second] = created as [string, string]
    expect(await accounts.getAccount(first)).not.toBeNull()
    expect((await accounts.listEmailAddresses(first)).map((each) => each.address)).toEqual([
      'first@example.com',
    ])
    expect(await accounts.getAccount(second)).toBeNull()
    expect(await accounts.listEmailAddresses(second)).toEqual([])
    expect(await accounts.findPassword({ accountId: second })).toBeNull()
    // Only the first sign-up's mail: the refused one left no message behind.
    expect(outbox.pending()).toHaveLength(1)
    expect(outbox.pending()[0]?.accountId).toBe(first)
  })
})

describe('sign-up racing a verification of the same address', () => {
  it('answers as ever and creates and sends nothing when another account verified the address after the lookup', async () => {
    const base = await accountEmailWorld()
    await base.verifiedAccount('raced@example.com')
    const mailBefore = base.outbox.pending().length
    const created: string[] = []
    // The lookup runs before the other account's verification commits: it finds nobody.
    const accounts = new Proxy(base.accounts, {
      get(target, property) {
        const value = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        if (property === 'findAccountByVerifiedEmail') return async () => null
        if (property !== 'createAccount') return value.bind(target)
        return async (request: { accountId: string }) => {
          created.push(request.accountId)
          return value.call(target, request)
        }
      },
    })
    const world = await accountEmailWorld({
      email: { accounts, codes: base.codes, outbox: base.outbox, local: base.local },
    })
    const fresh = await world.email.signUp({ email: 'other@example.com', password: PASSWORD })
    const raced = await world.email.signUp({ email: 'raced@example.com', password: PASSWORD })
    expect(raced.flow).toHaveLength(fresh.flow.length)
    expect(created).toHaveLength(2)
    expect(await base.accounts.getAccount(created[1] as string)).toBeNull()
    expect(await base.accounts.listEmailAddresses(created[1] as string)).toEqual([])
    // Only the other address's verification was written.
    expect(base.outbox.pending().length - mailBefore).toBe(1)
    expect(base.events.filter((event) => event.type === 'sign_up.refused')).toMatchObject([
      { type: 'sign_up.refused', reason: 'address_taken' },
    ])
    await expect(world.email.verifyEmail({ flow: raced.flow, code: '000000' })).rejects.toMatchObject({
      code: 'account_email.invalid_code',
    })
  })
})
