import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FORM_MAX_BODY_BYTES } from '../src/accounts/forms.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Every body the reference app reads has a limit, and a body over it is 413 problem+json
 * `request.body_too_large` (an HTML page with the same status for browsers), whether its size is declared
 * or only seen while reading (chunked); a body of exactly the limit is processed as usual.
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  await app?.close()
})

const FORM = 'application/x-www-form-urlencoded'

/** A body sent chunked (no Content-Length): the server sees its size only while reading it. */
function chunked(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = new TextEncoder().encode(text)
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.byteLength; offset += 1024)
        controller.enqueue(bytes.subarray(offset, offset + 1024))
      controller.close()
    },
  })
  return { body, duplex: 'half' }
}

/** The demo user's sign-in form, padded with a field the page ignores to exactly `bytes` bytes. */
function signInForm(bytes: number): string {
  const fields = `username=alice&password=${encodeURIComponent(app.password('alice'))}&return_to=/keys&pad=`
  return fields.padEnd(bytes, 'x')
}

async function expectTooLarge(response: Response) {
  expect(response.status).toBe(413)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(await response.json()).toMatchObject({ status: 413, code: 'request.body_too_large' })
}

describe('page forms: at most 4 KiB', () => {
  const post = (init: RequestInit & { duplex?: 'half' }, accept = 'application/json') =>
    fetch(`${app.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      ...init,
      headers: { origin: app.url, 'content-type': FORM, accept },
    })

  it('refuses one byte over the limit with 413, declared or chunked', async () => {
    await expectTooLarge(await post({ body: signInForm(FORM_MAX_BODY_BYTES + 1) }))
    await expectTooLarge(await post(chunked(signInForm(FORM_MAX_BODY_BYTES + 1))))
  })

  it('shows a browser an HTML page with the same 413 status and code', async () => {
    const page = await post({ body: signInForm(FORM_MAX_BODY_BYTES + 1) }, 'text/html')
    expect(page.status).toBe(413)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await page.text()).toContain('request.body_too_large')
  })

  it('signs in with a form of exactly the limit, declared or chunked', async () => {
    for (const init of [
      { body: signInForm(FORM_MAX_BODY_BYTES) },
      chunked(signInForm(FORM_MAX_BODY_BYTES)),
    ]) {
      const signedIn = await post(init)
      expect(signedIn.status).toBe(303)
      expect(signedIn.headers.get('location')).toBe('/keys')
    }
  })
})

describe('the JSON routes and the MCP endpoint of the app', () => {
  it('answers a 2 MB JSON login with 413, declared or chunked', async () => {
    const body = `${JSON.stringify({ username: 'alice', password: app.password('alice') })}${' '.repeat(2 * 1024 * 1024)}`
    for (const init of [{ body }, chunked(body)]) {
      await expectTooLarge(
        await fetch(`${app.url}/auth/login`, {
          method: 'POST',
          ...init,
          headers: { origin: app.url, 'content-type': 'application/json' },
        }),
      )
    }
  })

  it('answers a 2 MB MCP request of an authenticated agent with 413, and a small one normally', async () => {
    const key = await app.apiKeys.issue({ ownerId: 'demo-alice', ownerKind: 'user', label: 'body limits' })
    const headers = {
      'x-api-key': key.value,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    }
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    const mcp = (init: RequestInit & { duplex?: 'half' }) =>
      fetch(`${app.url}/mcp`, { method: 'POST', ...init, headers })
    await expectTooLarge(await mcp(chunked(ping.padEnd(2 * 1024 * 1024))))
    const answered = await mcp({ body: ping.padEnd(64 * 1024) })
    expect(answered.status).toBe(200)
    expect(await answered.json()).toMatchObject({ id: 1, result: {} })
  })
})
