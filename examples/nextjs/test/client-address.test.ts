// The example's client address and Host check, on the app as a user runs it (installed from the packed
// tarballs, `next build`, `next start`, memory stores): a route handler sees no socket, so the per-address
// sign-in limit counts the client the proxy names in X-Forwarded-For (IPv6 by its /64), and the MCP
// endpoint refuses a Host other than the application's own (DNS rebinding).
import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { freePort, nextBuild, nextStart, type RunningApp } from './support/next-app.js'

const EMAIL = 'demo@example.test'
const PASSWORD = 'correct horse battery staple'
const API_KEY = `example_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
const LIMIT = 3

let app: RunningApp | undefined
let origin = ''

beforeAll(async () => {
  // the install every test file shares (test/support/packed-setup.ts)
  const directory = inject('packedExample').turbopack
  await nextBuild(directory, 'turbopack', {}, 400_000)
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  app = await nextStart(
    directory,
    {
      PUBLIC_ORIGIN: origin,
      DEMO_EMAIL: EMAIL,
      DEMO_PASSWORD: PASSWORD,
      DEMO_API_KEY: API_KEY,
      SIGN_IN_LIMIT_PER_ADDRESS: String(LIMIT),
    },
    90_000,
    port,
  )
}, 600_000)

afterAll(async () => {
  await app?.stop()
})

let attempt = 0
/** A failed sign-in (a fresh username each time: only the per-address limit can refuse it). */
async function failedSignIn(forwardedFor?: string): Promise<Response> {
  attempt += 1
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    origin,
    'sec-fetch-site': 'same-origin',
  }
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor
  return fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ username: `nobody-${attempt}@example.test`, password: 'not the password' }),
  })
}

async function statuses(clients: readonly (string | undefined)[]): Promise<(number | string)[]> {
  const seen: (number | string)[] = []
  for (const client of clients) {
    const answer = await failedSignIn(client)
    const body = (await answer.json()) as { code?: string }
    const retryAfter = Number(answer.headers.get('retry-after'))
    seen.push(
      answer.status === 429 && body.code === 'local.rate_limited' && retryAfter > 0 && retryAfter <= 900
        ? '429 with Retry-After'
        : answer.status,
    )
  }
  return seen
}

const limited = [...new Array<number>(LIMIT).fill(401), '429 with Retry-After']

describe('the client address of the Next.js example', () => {
  it('reaches the per-address sign-in limit from one client, forwarded by the proxy', async () => {
    // as a proxy appends it: a spoofed entry the client wrote, then the address the proxy saw
    const forwarded = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'].map(
      (spoofed) => `${spoofed}, 203.0.113.7`,
    )
    expect(await statuses(forwarded)).toEqual(limited)
    // another client keeps its own budget
    expect(await statuses(['203.0.113.8'])).toEqual([401])
  }, 60_000)

  it('counts an IPv6 client by its /64, however it rotates its address', async () => {
    const rotating = ['2001:db8:7:7::1', '2001:db8:7:7:a:b:c:d', '2001:db8:7:7:ffff::9', '2001:db8:7:7::2']
    expect(await statuses(rotating)).toEqual(limited)
    expect(await statuses(['2001:db8:7:8::1'])).toEqual([401])
  }, 60_000)

  it('without X-Forwarded-For, counts the peer Next.js saw', async () => {
    // `next start` writes the socket's address into X-Forwarded-For when the request has none
    expect(await statuses(new Array<undefined>(LIMIT + 1).fill(undefined))).toEqual(limited)
  }, 60_000)

  it('refuses an MCP request for another Host (DNS rebinding), and serves its own', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    // node:http, so that the Host header is the one written here, as a rebinding page's browser sends it
    const post = (host: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const url = new URL(origin)
        const outgoing = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: 'POST',
            path: '/api/mcp',
            headers: {
              host,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'x-api-key': API_KEY,
            },
          },
          (incoming) => {
            const chunks: Buffer[] = []
            incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
            incoming.on('end', () =>
              resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
            )
          },
        )
        outgoing.on('error', reject)
        outgoing.end(body)
      })
    const rebound = await post('rebind.example')
    expect(rebound.status).toBe(403)
    expect((JSON.parse(rebound.text) as { error?: { message?: string } }).error?.message).toBe(
      'Host not allowed',
    )
    const own = await post(new URL(origin).host)
    expect(own.status).toBe(200)
  }, 60_000)
})
