import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../../accounts/memory-store.js'
import { MemoryMailOutbox } from '../../mail/memory-outbox.js'
import { sealOutboxMessage } from '../../mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../protection/key.js'
import type { OAuthTransactionProtector } from '../../protection/protector.js'
import { OAuthAccountError } from './errors.js'
import { inspectMemoryOAuthAccountStore, MemoryOAuthAccountStore } from './memory-store.js'
import { ProviderTokenSet } from './token-set.js'

const NOW = new Date('2031-03-04T05:06:07Z')
const ISSUER = 'https://accounts.example/'

function protector(): AESGCMOAuthTransactionProtector {
  return new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
}

function tokens(access = `access-${randomBytes(6).toString('hex')}`): ProviderTokenSet {
  return new ProviderTokenSet({
    accessToken: access,
    refreshToken: `refresh-${access}`,
    scopes: ['openid'],
    expiresAt: NOW,
  })
}

const grant = { scopes: ['openid'], expiresAt: null }

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code,
  )
}

describe('MemoryOAuthAccountStore configuration', () => {
  it('requires a protector, a provider and a client id', () => {
    const missing = { provider: 'google', clientId: 'client' } as unknown as ConstructorParameters<
      typeof MemoryOAuthAccountStore
    >[0]
    expect(() => new MemoryOAuthAccountStore(missing)).toThrow(/protector/)
    expect(
      () => new MemoryOAuthAccountStore({ provider: ' ', clientId: 'client', protector: protector() }),
    ).toThrow(expect.objectContaining({ code: 'oauth.account.store_options', errorClass: 'configuration' }))
    expect(
      () => new MemoryOAuthAccountStore({ provider: 'google', clientId: '', protector: protector() }),
    ).toThrow(expect.objectContaining({ errorClass: 'configuration' }))
  })

  it('inspects without rows or secrets', async () => {
    const store = new MemoryOAuthAccountStore({
      provider: 'google',
      clientId: 'client',
      protector: protector(),
    })
    const identity = { provider: 'google', issuer: ISSUER, subject: 's' }
    const login = await store.login({
      identity,
      grant,
      tokens: tokens('leaky'),
      provisionUnknown: true,
      now: NOW,
    })
    expect(inspect(store)).toBe('MemoryOAuthAccountStore { provider: "google", links: 1 }')
    const stored = await store.getTokens(login.link.providerAccountId)
    expect(inspect(stored, { depth: 10 })).not.toContain('leaky')
    expect(JSON.stringify(stored)).not.toContain('leaky')
  })
})

describe('MemoryOAuthAccountStore across providers', () => {
  it('shares the login-method count of an account between the stores of several providers', async () => {
    const accounts = new MemoryAccountStore()
    const google = accounts.oauth({ provider: 'google', clientId: 'g', protector: protector() })
    const github = accounts.oauth({ provider: 'github', clientId: 'h', protector: protector() })
    const login = await google.login({
      identity: { provider: 'google', issuer: ISSUER, subject: 'person' },
      grant,
      provisionUnknown: true,
      now: NOW,
    })
    const accountId = login.link.accountId
    const linked = await github.link({
      accountId,
      identity: { provider: 'github', issuer: 'https://github.com', subject: '12345' },
      grant,
      now: NOW,
    })
    expect((await google.getAccount(accountId))?.loginMethods).toBe(2)
    expect(await google.resolveLink({ accountId, provider: 'github' })).toBeNull()
    expect((await github.resolveLink({ accountId, provider: 'github' }))?.subject).toBe('12345')

    // Unlinking Google is allowed because GitHub remains; then GitHub is the final method.
    const unlinked = await google.unlink({
      accountId,
      provider: 'google',
      providerAccountId: login.link.providerAccountId,
    })
    expect(unlinked.status).toBe('unlinked')
    const last = await github.unlink({
      accountId,
      provider: 'github',
      providerAccountId: linked.link.providerAccountId,
    })
    expect(last.status).toBe('final-method')
    expect((await github.getAccount(accountId))?.loginMethods).toBe(1)
  })

  it('keeps the final method when both providers unlink at the same moment', async () => {
    const accounts = new MemoryAccountStore()
    const stores = ['a', 'b'].map((name) =>
      accounts.oauth({ provider: name, clientId: name, protector: protector() }),
    )
    const [first, second] = stores as [MemoryOAuthAccountStore, MemoryOAuthAccountStore]
    const login = await first.login({
      identity: { provider: 'a', issuer: ISSUER, subject: 'x' },
      grant,
      provisionUnknown: true,
      now: NOW,
    })
    const accountId = login.link.accountId
    const other = await second.link({
      accountId,
      identity: { provider: 'b', issuer: ISSUER, subject: 'x' },
      grant,
      now: NOW,
    })
    const outcomes = await Promise.all([
      first.unlink({ accountId, provider: 'a', providerAccountId: login.link.providerAccountId }),
      second.unlink({ accountId, provider: 'b', providerAccountId: other.link.providerAccountId }),
    ])
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['final-method', 'unlinked'])
    expect((await first.getAccount(accountId))?.loginMethods).toBe(1)
  })
})

describe('MemoryOAuthAccountStore failure atomicity', () => {
  /** A protector that fails on demand, to prove a failed seal leaves no partial state. */
  function flaky(): { protector: OAuthTransactionProtector; fail: (on: boolean) => void } {
    const real = protector()
    let failing = false
    return {
      fail: (on) => {
        failing = on
      },
      protector: {
        activeKeyVersion: real.activeKeyVersion,
        protect: async (plaintext, aad) => {
          if (failing) throw new Error('kms unreachable')
          return real.protect(plaintext, aad)
        },
        unprotect: (envelope, aad) => real.unprotect(envelope, aad),
      },
    }
  }

  it('a provisioning login whose tokens cannot be sealed creates no account and no link', async () => {
    const { protector: failing, fail } = flaky()
    const store = new MemoryOAuthAccountStore({ provider: 'google', clientId: 'c', protector: failing })
    const identity = { provider: 'google', issuer: ISSUER, subject: 'atomic' }
    fail(true)
    const code = await codeOf(
      store.login({ identity, grant, tokens: tokens(), provisionUnknown: true, now: NOW }),
    )
    expect(code).toBe('oauth.vault.unavailable')
    fail(false)
    const retry = await store.login({ identity, grant, provisionUnknown: true, now: NOW })
    expect(retry.provisioned).toBe(true)
  })

  it('a relink whose tokens cannot be sealed keeps the old grant and the old tokens', async () => {
    const { protector: failing, fail } = flaky()
    const store = new MemoryOAuthAccountStore({ provider: 'google', clientId: 'c', protector: failing })
    const identity = { provider: 'google', issuer: ISSUER, subject: 'kept' }
    const original = tokens('original')
    const first = await store.login({ identity, grant, tokens: original, provisionUnknown: true, now: NOW })
    fail(true)
    const wider = { scopes: ['openid', 'email'] }
    const code = await codeOf(
      store.link({ accountId: first.link.accountId, identity, grant: wider, tokens: tokens(), now: NOW }),
    )
    expect(code).toBe('oauth.vault.unavailable')
    fail(false)
    const link = await store.resolveLink({ accountId: first.link.accountId, provider: 'google' })
    expect(link?.grant.scopes).toEqual(['openid'])
    const stored = await store.getTokens(first.link.providerAccountId)
    expect(stored?.tokens.accessToken).toBe('original')
    expect(stored?.reference.version).toBe(first.tokens?.version)
  })

  it('a vault error is typed, secret-free and keeps the protector failure only as its cause', async () => {
    const { protector: failing, fail } = flaky()
    const store = new MemoryOAuthAccountStore({ provider: 'google', clientId: 'c', protector: failing })
    fail(true)
    const error = await store
      .login({
        identity: { provider: 'google', issuer: ISSUER, subject: 's' },
        grant,
        tokens: tokens('leak-me'),
        provisionUnknown: true,
        now: NOW,
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthAccountError)
    expect(JSON.stringify(error)).not.toContain('leak-me')
    expect(String(error)).not.toContain('leak-me')
    expect((error as Error).cause).toBeInstanceOf(Error)
  })

  it('a tampered envelope reports the vault unavailable and does not disturb other rows', async () => {
    const store = new MemoryOAuthAccountStore({ provider: 'google', clientId: 'c', protector: protector() })
    const login = (subject: string) =>
      store.login({
        identity: { provider: 'google', issuer: ISSUER, subject },
        grant,
        tokens: tokens(),
        provisionUnknown: true,
        now: NOW,
      })
    const [victim, bystander] = [await login('victim'), await login('bystander')]
    const inspector = inspectMemoryOAuthAccountStore(store)
    const envelope = await inspector.readVaultEnvelope(victim.link.providerAccountId)
    expect(envelope?.keyVersion).toBe('k1')
    if (envelope === null) return
    const flipped = Uint8Array.from(envelope.ciphertext)
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1
    await inspector.writeVaultEnvelope(victim.link.providerAccountId, { ...envelope, ciphertext: flipped })
    expect(await codeOf(store.getTokens(victim.link.providerAccountId))).toBe('oauth.vault.unavailable')
    expect((await store.getTokens(bystander.link.providerAccountId))?.reference.version).toBe(
      bystander.tokens?.version,
    )
    expect(await store.getTokens('pa_unknown')).toBeNull()
    expect(await inspector.writeVaultEnvelope('pa_unknown', envelope)).toBe(false)
  })
})

describe('MemoryOAuthAccountStore constructed with its own outbox', () => {
  const entry = (store: MemoryOAuthAccountStore, accountId: string) =>
    sealOutboxMessage(
      protector(),
      {
        kind: 'security-notification',
        to: { address: 'owner@example.com' },
        locale: 'en',
        change: { type: 'identity-unlinked', provider: store.provider },
        occurredAt: NOW,
      },
      { now: NOW, accountId },
    )

  it('writes nothing for an unlink that finds no link, and refuses entries without an outbox', async () => {
    const outbox = new MemoryMailOutbox()
    const store = new MemoryOAuthAccountStore({
      provider: 'idp',
      clientId: 'c',
      protector: protector(),
      outbox,
    })
    const login = await store.login({
      identity: { provider: 'idp', issuer: ISSUER, subject: 'solo' },
      grant,
      provisionUnknown: true,
      now: NOW,
    })
    const { accountId, providerAccountId } = login.link
    // Its only way in: refused, and its notification with it.
    const request = { accountId, provider: 'idp', providerAccountId }
    const sole = await store.unlink({ ...request, outbox: [await entry(store, accountId)] })
    expect(sole).toEqual({ status: 'final-method' })
    const forged = await store.unlink({
      ...request,
      accountId: 'someone-else',
      outbox: [await entry(store, accountId)],
    })
    expect(forged).toEqual({ status: 'not-found' })
    expect(outbox.pending()).toEqual([])
    const bare = new MemoryOAuthAccountStore({ provider: 'idp', clientId: 'c', protector: protector() })
    const again = await bare.login({
      identity: { provider: 'idp', issuer: ISSUER, subject: 'solo' },
      grant,
      provisionUnknown: true,
      now: NOW,
    })
    await expect(
      codeOf(
        bare.unlink({
          accountId: again.link.accountId,
          provider: 'idp',
          providerAccountId: again.link.providerAccountId,
          outbox: [await entry(bare, again.link.accountId)],
        }),
      ),
    ).resolves.toBe('accounts.outbox_not_configured')
  })
})
