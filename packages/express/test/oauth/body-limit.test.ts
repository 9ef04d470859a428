// The OAuth routes' body limit over real HTTP: a body over `maxBodyBytes` (default 16 KiB) is 413
// problem+json `request.body_too_large` on every route that reads one, declared or chunked; a body of
// exactly the limit begins the round trip as usual; the OpenAPI document lists the 413.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOAuthRoutes } from '../../src/index.js'
import { expectTooLarge, paddedJson, rawPost } from '../support/raw-post.js'
import { OAuthApp, PROVIDER } from './support/harness.js'

const AT = `/auth/oauth/${PROVIDER}`
const LIMIT = 16 * 1024

describe('OAuth route bodies', () => {
  let app: OAuthApp

  beforeAll(async () => {
    app = await OAuthApp.start()
  })
  afterAll(async () => {
    await app.close()
  })

  it.each(['link', 'scopes', 'revalidate', 'reauthenticate/delete-account'])(
    'POST %s refuses one byte over 16 KiB with 413, declared or chunked',
    async (route) => {
      const { client } = app.signedInClient('local-oversized')
      for (const chunked of [false, true]) {
        const answer = await rawPost(`${app.origin}${AT}/${route}`, {
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            cookie: client.cookieHeader(),
          },
          body: paddedJson({ return_to: '/' }, LIMIT + 1),
          chunked,
        })
        expectTooLarge(answer)
        expect(answer.body.detail).toBe(`the body must be at most ${LIMIT} bytes`)
      }
    },
  )

  it('refuses an oversized form (2 MB) with 413 too', async () => {
    const { client } = app.signedInClient('local-oversized-form')
    const answer = await rawPost(`${app.origin}${AT}/revalidate`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: client.cookieHeader() },
      body: `return_to=%2F${'&'.repeat(2 * 1024 * 1024)}`,
    })
    expectTooLarge(answer)
  })

  it('begins a revalidation with a body of exactly 16 KiB, declared or chunked', async () => {
    const browser = app.client()
    await app.signIn(browser, 'limit-user')
    for (const chunked of [false, true]) {
      const begun = await rawPost(`${app.origin}${AT}/revalidate`, {
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          cookie: browser.cookieHeader(),
        },
        body: paddedJson({ return_to: '/' }, LIMIT),
        chunked,
      })
      expect(begun.status).toBe(200)
      expect(begun.body).toMatchObject({ operation: 'revalidate', provider: PROVIDER })
    }
  })

  it('documents 413 in OpenAPI on exactly the routes that read a body', () => {
    const paths = app.security.openapi().paths as Record<string, Record<string, { responses: object }>>
    const at = (rest: string) => paths[`${AT.replace(PROVIDER, '{provider}')}/${rest}`]?.post?.responses
    for (const route of ['link', 'scopes', 'revalidate', 'reauthenticate/{purpose}']) {
      expect(at(route), route).toHaveProperty('413')
    }
    for (const route of ['revoke', 'logout', 'links/{providerAccountId}/unlink']) {
      expect(at(route), route).not.toHaveProperty('413')
    }
  })
})

describe('the OAuth maxBodyBytes option', () => {
  it('sets the limit: 1024 bytes begin a revalidation, 1025 are 413', async () => {
    const small = await OAuthApp.start({ maxBodyBytes: 1024 })
    try {
      const browser = small.client()
      await small.signIn(browser, 'small-limit-user')
      const post = (bytes: number) =>
        rawPost(`${small.origin}${AT}/revalidate`, {
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            cookie: browser.cookieHeader(),
          },
          body: paddedJson({ return_to: '/' }, bytes),
          chunked: true,
        })
      expect((await post(1024)).status).toBe(200)
      const over = await post(1025)
      expectTooLarge(over)
      expect(over.body.detail).toBe('the body must be at most 1024 bytes')
      for (const maxBodyBytes of [10, 2 * 1024 * 1024, 1.5]) {
        expect(() =>
          createOAuthRoutes({
            security: small.security,
            lifecycle: small.lifecycle,
            signIn: () => undefined,
            currentSession: () => undefined,
            maxBodyBytes,
          }),
        ).toThrow(/maxBodyBytes/)
      }
    } finally {
      await small.close()
    }
  })
})
