import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/index.js'
import {
  MemoryOAuthTransactionStore,
  OAuthRedirectPolicy,
  type OAuthTransaction,
  OAuthTransactionInvalidError,
  OAuthTransactionService,
  type OAuthTransactionStore,
  OAuthTransactionUnavailableError,
  pkceS256Challenge,
} from '../../src/oauth/transactions/index.js'
import type { OAuthTransactionProtector } from '../../src/protection/index.js'
import { CALLBACK, ManualClock, newProtector, newService } from './fixtures.js'

const TOKEN = /^[A-Za-z0-9_-]{43}$/
const start = { provider: 'acme', operation: 'login', redirectUri: CALLBACK } as const

async function expectInvalid(promise: Promise<unknown>, code = 'oauth.transaction.invalid') {
  const error = await promise.then(
    () => {
      throw new Error('expected an invalid transaction')
    },
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(OAuthTransactionInvalidError)
  expect((error as OAuthTransactionInvalidError).code).toBe(code)
  expect((error as OAuthTransactionInvalidError).errorClass).toBe('unauthenticated')
  return error as OAuthTransactionInvalidError
}

async function expectUnavailable(promise: Promise<unknown>, secrets: string[] = []) {
  const error = await promise.then(
    () => {
      throw new Error('expected unavailable')
    },
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(OAuthTransactionUnavailableError)
  const typed = error as OAuthTransactionUnavailableError
  expect(typed.errorClass).toBe('unavailable')
  for (const secret of secrets) {
    expect(typed.message).not.toContain(secret)
    expect(JSON.stringify(typed)).not.toContain(secret)
  }
  return typed
}

describe('OAuthTransactionService.start', () => {
  it('draws independent state, binding, verifier and nonce and returns the S256 challenge', async () => {
    const { service } = newService()
    const started = await service.start({ ...start, scopes: ['openid'] })
    const values = [started.state, started.browserBinding, started.transaction.pkceVerifier, started.nonce]
    for (const value of values) expect(value).toMatch(TOKEN)
    expect(new Set(values).size).toBe(4)
    expect(started.bindingReused).toBe(false)
    expect(started.pkceChallengeMethod).toBe('S256')
    expect(started.pkceChallenge).toBe(pkceS256Challenge(started.transaction.pkceVerifier))
    expect(started.transaction.expiresAt.getTime() - started.transaction.createdAt.getTime()).toBe(600_000)
    expect(started.transaction.nonce).toBe(started.nonce)
    const forms = [inspect(started), JSON.stringify(started)]
    for (const form of forms) for (const value of values) expect(form).not.toContain(value)
  })

  it('reuses a well-formed binding across tabs with distinct states that do not overwrite each other', async () => {
    const { service } = newService()
    const first = await service.start(start)
    const second = await service.start({
      ...start,
      browserBinding: first.browserBinding,
      returnTo: '/settings',
    })
    expect(second.browserBinding).toBe(first.browserBinding)
    expect(second.bindingReused).toBe(true)
    expect(second.state).not.toBe(first.state)
    const a = await service.consume({
      state: first.state,
      browserBinding: first.browserBinding,
      provider: 'acme',
    })
    const b = await service.consume({
      state: second.state,
      browserBinding: first.browserBinding,
      provider: 'acme',
    })
    expect(a.returnTo).toBe('/')
    expect(b.returnTo).toBe('/settings')
  })

  it('ignores a garbage binding cookie and mints a fresh binding', async () => {
    const { service } = newService()
    for (const garbage of ['', 'x', 'a'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}.`, '<script>']) {
      const started = await service.start({ ...start, browserBinding: garbage })
      expect(started.bindingReused).toBe(false)
      expect(started.browserBinding).toMatch(TOKEN)
      expect(started.browserBinding).not.toBe(garbage)
    }
  })

  it('refuses redirects and return targets that are not allow-listed before drawing or storing', async () => {
    let draws = 0
    const { service, store } = newService({
      randomBytes: (size) => {
        draws++
        return randomBytes(size)
      },
    })
    await expectInvalid(
      service.start({ ...start, redirectUri: `${CALLBACK}/` }),
      'oauth.transaction.redirect_not_allowed',
    )
    await expectInvalid(
      service.start({ ...start, returnTo: '//evil.example' }),
      'oauth.transaction.redirect_not_allowed',
    )
    await expectInvalid(
      service.start({ ...start, provider: 'unknown' }),
      'oauth.transaction.redirect_not_allowed',
    )
    await expectInvalid(
      service.start({ ...start, operation: 'delete' as 'login' }),
      'oauth.transaction.request_invalid',
    )
    await expectInvalid(
      service.start({ ...start, scopes: ['bad scope'] }),
      'oauth.transaction.request_invalid',
    )
    await expectInvalid(service.start({ ...start, operation: 'link' }), 'oauth.transaction.request_invalid')
    expect(store.creates).toBe(0)
    expect(draws).toBeLessThanOrEqual(8)
  })

  it('reports broken randomness, protector or store as unavailable without secrets', async () => {
    const broken = newService({
      randomBytes: () => {
        throw new Error('no entropy')
      },
    })
    await expectUnavailable(broken.service.start(start), ['no entropy'])
    const short = newService({ randomBytes: (size) => randomBytes(size - 1) })
    await expectUnavailable(short.service.start(start))

    const failingProtector: OAuthTransactionProtector = {
      activeKeyVersion: 'v1',
      protect: () => Promise.reject(new Error('kms unreachable')),
      unprotect: () => Promise.reject(new Error('kms unreachable')),
    }
    const viaProtector = newService({
      store: new MemoryOAuthTransactionStore({ protector: failingProtector }),
    })
    const error = await expectUnavailable(viaProtector.service.start(start), ['kms unreachable'])
    expect(error.cause).toBeInstanceOf(Error)

    const full = newService({
      store: new MemoryOAuthTransactionStore({ protector: newProtector(), capacity: 1 }),
    })
    await full.service.start(start)
    await expectUnavailable(full.service.start(start))
  })

  it('refuses unsafe configuration', () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const redirects = new OAuthRedirectPolicy({ callbackUris: { acme: [CALLBACK] } })
    const base = { store, redirects, pepper: randomBytes(32) }
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ pepper: randomBytes(31) }, 'oauth.transaction_service.pepper_invalid'],
      [{ pepper: 'x'.repeat(64) }, 'oauth.transaction_service.pepper_invalid'],
      [{ lifetimeSeconds: 0 }, 'oauth.transaction_service.lifetime_invalid'],
      [{ lifetimeSeconds: 601 }, 'oauth.transaction_service.lifetime_invalid'],
      [{ lifetimeSeconds: 1.5 }, 'oauth.transaction_service.lifetime_invalid'],
      [{ randomBytes: 'random' }, 'oauth.transaction_service.injection_invalid'],
      [{ store: {} }, 'oauth.transaction_service.store_required'],
      [{ redirects: {} }, 'oauth.transaction_service.redirects_required'],
    ]
    for (const [override, code] of cases) {
      const options = { ...base, ...override } as unknown as ConstructorParameters<
        typeof OAuthTransactionService
      >[0]
      expect(() => new OAuthTransactionService(options)).toThrowError(expect.objectContaining({ code }))
      expect(() => new OAuthTransactionService(options)).toThrow(ConfigurationError)
    }
    const service = new OAuthTransactionService({ ...base, lifetimeSeconds: 60 })
    expect(inspect(service)).toContain('[redacted]')
  })
})

describe('OAuthTransactionService.consume', () => {
  it('returns the started transaction once; a replay is invalid', async () => {
    const { service } = newService()
    const started = await service.start(start)
    const callback = { state: started.state, browserBinding: started.browserBinding, provider: 'acme' }
    const tx = await service.consume({ ...callback, operation: 'login' })
    expect(tx.pkceVerifier).toBe(started.transaction.pkceVerifier)
    expect(tx.nonce).toBe(started.nonce)
    await expectInvalid(service.consume(callback))
  })

  it('lets one of many concurrent callbacks win and refuses the rest', async () => {
    const { service } = newService()
    const started = await service.start(start)
    const callback = { state: started.state, browserBinding: started.browserBinding, provider: 'acme' }
    const outcomes = await Promise.allSettled(Array.from({ length: 16 }, () => service.consume(callback)))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1)
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(OAuthTransactionInvalidError)
    }
    await expectInvalid(service.consume(callback))
  })

  it('does not burn the transaction on a wrong state, binding or provider', async () => {
    const { service } = newService()
    const started = await service.start(start)
    const other = await service.start({
      ...start,
      provider: 'other',
      redirectUri: 'https://app.example/auth/oauth/other/callback',
    })
    const genuine = { state: started.state, browserBinding: started.browserBinding, provider: 'acme' }
    await expectInvalid(service.consume({ ...genuine, state: other.state }))
    await expectInvalid(service.consume({ ...genuine, browserBinding: other.browserBinding }))
    await expectInvalid(service.consume({ ...genuine, provider: 'other' }))
    expect((await service.consume(genuine)).stateDigest).toEqual(started.transaction.stateDigest)
  })

  it('burns the transaction when the operation or session does not match', async () => {
    const { service } = newService()
    type ConsumeInput = Parameters<typeof service.consume>[0]
    const cases: Array<[Parameters<typeof service.start>[0], (genuine: ConsumeInput) => ConsumeInput]> = [
      [start, (genuine) => ({ ...genuine, operation: 'link' })],
      [{ ...start, sessionBinding: 'session-a' }, (genuine) => ({ ...genuine, sessionBinding: 'session-b' })],
      [{ ...start, sessionBinding: 'session-a' }, ({ sessionBinding: _dropped, ...rest }) => rest],
      [start, (genuine) => ({ ...genuine, sessionBinding: 'session-a' })],
    ]
    for (const [startInput, mismatch] of cases) {
      const started = await service.start(startInput)
      const genuine: ConsumeInput = {
        state: started.state,
        browserBinding: started.browserBinding,
        provider: 'acme',
        operation: 'login',
        ...(startInput.sessionBinding === undefined ? {} : { sessionBinding: startInput.sessionBinding }),
      }
      await expectInvalid(service.consume(mismatch(genuine)))
      await expectInvalid(service.consume(genuine))
    }
    const bound = await service.start({ ...start, sessionBinding: 'session-a' })
    const ok = await service.consume({
      state: bound.state,
      browserBinding: bound.browserBinding,
      provider: 'acme',
      sessionBinding: 'session-a',
    })
    expect(ok.sessionBindingDigest).toHaveLength(32)
  })

  it('treats the transaction as gone exactly at expiresAt', async () => {
    const clock = new ManualClock()
    const { service } = newService({ clock })
    const a = await service.start(start)
    const b = await service.start(start)
    clock.advance(599_999)
    await service.consume({ state: a.state, browserBinding: a.browserBinding, provider: 'acme' })
    clock.advance(1)
    await expectInvalid(
      service.consume({ state: b.state, browserBinding: b.browserBinding, provider: 'acme' }),
    )
  })

  it('checks formats before any store access', async () => {
    const { service, store } = newService()
    const started = await service.start(start)
    const genuine = { state: started.state, browserBinding: started.browserBinding, provider: 'acme' }
    const malformed = [
      { ...genuine, state: started.state.slice(1) },
      { ...genuine, state: `${started.state}A` },
      { ...genuine, state: `${started.state.slice(1)}+` },
      { ...genuine, browserBinding: '' },
      { ...genuine, browserBinding: 7 as unknown as string },
      { ...genuine, provider: '' },
      { ...genuine, provider: 'a'.repeat(129) },
      { ...genuine, operation: 'delete' as 'login' },
      { ...genuine, sessionBinding: '' },
      null as unknown as typeof genuine,
    ]
    for (const input of malformed) await expectInvalid(service.consume(input))
    expect(store.consumes).toBe(0)
    await service.consume(genuine)
    expect(store.consumes).toBe(1)
  })

  it('reports store and protector failures as unavailable, and a failed open burns the record', async () => {
    const throwing: OAuthTransactionStore = {
      create: () => Promise.resolve(),
      consume: () => Promise.reject(new Error('connection reset')),
    }
    const down = newService({ store: throwing })
    const started = await down.service.start(start)
    await expectUnavailable(
      down.service.consume({
        state: started.state,
        browserBinding: started.browserBinding,
        provider: 'acme',
      }),
      ['connection reset', started.state],
    )

    const protector = newProtector()
    let failOpen = false
    const flaky: OAuthTransactionProtector = {
      activeKeyVersion: 'v1',
      protect: (plaintext, aad) => protector.protect(plaintext, aad),
      unprotect: (envelope, aad) =>
        failOpen ? Promise.reject(new Error('decrypt failed')) : protector.unprotect(envelope, aad),
    }
    const { service } = newService({ store: new MemoryOAuthTransactionStore({ protector: flaky }) })
    const tx = await service.start(start)
    const callback = { state: tx.state, browserBinding: tx.browserBinding, provider: 'acme' }
    failOpen = true
    await expectUnavailable(service.consume(callback), [tx.transaction.pkceVerifier])
    failOpen = false
    await expectInvalid(service.consume(callback))
  })

  it('never puts state, binding, verifier or nonce in error messages', async () => {
    const { service } = newService()
    const started = await service.start(start)
    const error = await expectInvalid(
      service.consume({ state: started.state, browserBinding: started.browserBinding, provider: 'other' }),
    )
    const text = `${error.message} ${JSON.stringify(error)} ${inspect(error)}`
    for (const secret of [started.state, started.browserBinding, started.transaction.pkceVerifier]) {
      expect(text).not.toContain(secret)
    }
    const tx: OAuthTransaction = await service.consume({
      state: started.state,
      browserBinding: started.browserBinding,
      provider: 'acme',
    })
    expect(tx.provider).toBe('acme')
  })
})
