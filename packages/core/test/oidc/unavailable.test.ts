// An IdP that is down during the callback: `unavailable`, and a retry only when the code was never sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OIDCProviderUnavailableError } from '../../src/oidc/errors.js'
import { OidcFixture, PROVIDER } from './support/fixture.js'

describe('an identity provider that is unavailable during the callback', () => {
  let fixture: OidcFixture

  beforeAll(async () => {
    fixture = await OidcFixture.create()
  })
  afterAll(async () => {
    await fixture.close()
  })
  beforeEach(() => {
    fixture.idp.tokenFailure = 'none'
    fixture.browser.clearCookies()
  })

  async function authorized() {
    const begun = await fixture.lifecycle.begin({ operation: 'login', provider: PROVIDER })
    const callback = await fixture.authorize(begun.redirectUrl)
    return {
      complete: () =>
        fixture.lifecycle.complete({ provider: PROVIDER, callback, browserBinding: begun.browserBinding }),
    }
  }

  it('unreachable token endpoint: unavailable, the transaction is kept, and the same callback succeeds later', async () => {
    const flow = await authorized()
    await fixture.idp.stop()
    let error: unknown
    try {
      error = await flow.complete().catch((caught: unknown) => caught)
    } finally {
      await fixture.idp.resume()
    }
    expect(error).toBeInstanceOf(OIDCProviderUnavailableError)
    expect(error).toMatchObject({
      code: 'oidc.provider.unavailable',
      errorClass: 'unavailable',
      retryable: true,
    })
    const outcome = await flow.complete()
    expect(outcome.operation).toBe('login')
  })

  it('a 503 from the token endpoint: unavailable, not retryable, the transaction is gone', async () => {
    const flow = await authorized()
    fixture.idp.tokenFailure = 'http-503'
    const error = await flow.complete().catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'oidc.provider.unavailable', retryable: false })
    fixture.idp.tokenFailure = 'none'
    await expect(flow.complete()).rejects.toMatchObject({ code: 'oauth.transaction.invalid' })
  })

  it('a token endpoint that hangs: unavailable after the timeout, not retryable (the code may be spent)', async () => {
    const flow = await authorized()
    fixture.idp.tokenFailure = 'hang'
    const started = Date.now()
    const error = await flow.complete().catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'oidc.provider.unavailable', retryable: false })
    expect(Date.now() - started).toBeLessThan(10_000)
    fixture.idp.tokenFailure = 'none'
    await expect(flow.complete()).rejects.toMatchObject({ code: 'oauth.transaction.invalid' })
  })

  it('without the transaction store the unreachable case is reported but not retryable', async () => {
    const bare = await OidcFixture.create({ restoreTransactions: false })
    try {
      const begun = await bare.lifecycle.begin({ operation: 'login', provider: PROVIDER })
      const callback = await bare.authorize(begun.redirectUrl)
      await bare.idp.stop()
      const error = await bare.lifecycle
        .complete({ provider: PROVIDER, callback, browserBinding: begun.browserBinding })
        .catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code: 'oidc.provider.unavailable', retryable: false })
    } finally {
      await bare.close()
    }
  })
})
