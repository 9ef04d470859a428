// Oversized bodies on the local-account routes over real HTTP: 413 problem+json `request.body_too_large`
// whether the size is declared (Content-Length) or only seen while reading (chunked), nothing written;
// a body of exactly the limit is processed normally.
import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../../src/index.js'
import { expectTooLarge, paddedJson, rawPost, serve } from '../support/raw-post.js'
import { localApp, PASSWORD, SAME_ORIGIN } from './fixture.js'

const JSON_TYPE = { 'content-type': 'application/json' }
const credentials = { username: 'alice', password: PASSWORD }
const closers: (() => Promise<void>)[] = []

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function started(maxBodyBytes?: number) {
  const fixture = await localApp('hybrid', {}, maxBodyBytes === undefined ? {} : { maxBodyBytes })
  const server = await serve(fixture.app)
  closers.push(server.close)
  return { ...fixture, url: server.url }
}

describe('a local-account body over the limit is 413 request.body_too_large', () => {
  it('a 2 MB JSON login is 413, not 400', async () => {
    const { url } = await started()
    const answer = await rawPost(`${url}/auth/login`, {
      headers: { ...JSON_TYPE, ...SAME_ORIGIN },
      body: paddedJson(credentials, 2 * 1024 * 1024),
    })
    expectTooLarge(answer)
  })

  it.each(['register', 'login', 'token', 'token/refresh', 'token/revoke'])(
    'POST /auth/%s refuses one byte over the default limit, declared or chunked, and writes nothing',
    async (route) => {
      const { url, accounts, rateLimits } = await started()
      for (const chunked of [false, true]) {
        const answer = await rawPost(`${url}/auth/${route}`, {
          headers: { ...JSON_TYPE, ...SAME_ORIGIN },
          body: paddedJson(credentials, LOCAL_ACCOUNTS_MAX_BODY_BYTES + 1),
          chunked,
        })
        expectTooLarge(answer)
        expect(answer.body.detail).toBe(`the body must be at most ${LOCAL_ACCOUNTS_MAX_BODY_BYTES} bytes`)
      }
      expect(await accounts.findPassword({ username: 'alice' })).toBeNull()
      expect(inspect(rateLimits)).toContain('keys: 0')
    },
  )

  it('signed-in routes (password change, logout) refuse an oversized body too', async () => {
    const { url } = await started()
    await rawPost(`${url}/auth/register`, { headers: JSON_TYPE, body: JSON.stringify(credentials) })
    const pair = await rawPost(`${url}/auth/token`, { headers: JSON_TYPE, body: JSON.stringify(credentials) })
    const bearer = { ...JSON_TYPE, authorization: `Bearer ${pair.body.access_token as string}` }
    const change = { currentPassword: PASSWORD, newPassword: `${PASSWORD} 2` }
    for (const [route, value] of [
      ['password/change', change],
      ['logout', { all: true }],
    ] as const) {
      const answer = await rawPost(`${url}/auth/${route}`, {
        headers: bearer,
        body: paddedJson(value, LOCAL_ACCOUNTS_MAX_BODY_BYTES + 1),
        chunked: true,
      })
      expectTooLarge(answer)
    }
    // the refused password change did not happen: the old password still signs in
    const again = await rawPost(`${url}/auth/token`, {
      headers: JSON_TYPE,
      body: JSON.stringify(credentials),
    })
    expect(again.status).toBe(200)
  })
})

describe('a local-account body of exactly the limit is processed normally', () => {
  it('registers and signs in with bodies of exactly 16 KiB, declared or chunked', async () => {
    const { url, accounts } = await started()
    const registered = await rawPost(`${url}/auth/register`, {
      headers: JSON_TYPE,
      body: paddedJson(credentials, LOCAL_ACCOUNTS_MAX_BODY_BYTES),
    })
    expect(registered.status).toBe(201)
    expect(await accounts.findPassword({ username: 'alice' })).not.toBeNull()
    const login = await rawPost(`${url}/auth/login`, {
      headers: { ...JSON_TYPE, ...SAME_ORIGIN },
      body: paddedJson(credentials, LOCAL_ACCOUNTS_MAX_BODY_BYTES),
      chunked: true,
    })
    expect(login.status).toBe(200)
    expect(login.body.accountId).toBe(registered.body.accountId)
  })

  it('honours the maxBodyBytes option (1 KiB): 1024 bytes are read, 1025 are 413', async () => {
    const { url } = await started(1024)
    await rawPost(`${url}/auth/register`, { headers: JSON_TYPE, body: JSON.stringify(credentials) })
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const fields = `username=alice&password=${encodeURIComponent(PASSWORD)}`
    const atLimit = await rawPost(`${url}/auth/token`, { headers: form, body: fields.padEnd(1024, '&') })
    expect(atLimit.status).toBe(200)
    expect(typeof atLimit.body.access_token).toBe('string')
    const over = await rawPost(`${url}/auth/token`, {
      headers: form,
      body: fields.padEnd(1025, '&'),
      chunked: true,
    })
    expectTooLarge(over)
    expect(over.body.detail).toBe('the body must be at most 1024 bytes')
  })
})
