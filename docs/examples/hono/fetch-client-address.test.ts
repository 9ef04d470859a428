// Each runtime's client-address source, driven with what that runtime passes beside the request: the
// per-address sign-in limit (3) counts each client apart, and with no source every request together.
import { createFetchSecurity, type FetchRoute } from '@portcullis/hono/fetch'
import { describe, expect, it } from 'vitest'
import { localAccounts, onBun, onDeno, onNext, onWorkers } from './fetch-client-address.js'

const signIn = (headers: Record<string, string> = {}) =>
  new Request('https://app.example/auth/login', {
    method: 'POST',
    headers: {
      host: 'app.example',
      origin: 'https://app.example',
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify({ username: 'nobody', password: 'not the password' }),
  })

/** Four failed sign-ins from client A, then one from client B: their statuses. */
async function statuses(fetch: FetchRoute, from: (client: string) => [Record<string, string>, unknown]) {
  const seen: (number | string)[] = []
  for (let attempt = 0; attempt < 4; attempt++) {
    const [headers, env] = from('203.0.113.7')
    const answer = await fetch(signIn(headers), env)
    if (answer.status === 429) {
      // over the limit: Retry-After names the rest of the 900 s window
      const retryAfter = Number(answer.headers.get('retry-after'))
      expect(retryAfter > 0 && retryAfter <= 900).toBe(true)
    }
    seen.push(answer.status)
  }
  const [headers, env] = from('198.51.100.9')
  seen.push((await fetch(signIn(headers), env)).status)
  return seen
}

const ownBudgets = [401, 401, 401, 429, 401]

describe('client-address sources of the fetch form', () => {
  it('Bun: server.requestIP(request)', async () => {
    const { fetch } = onBun(localAccounts())
    const server = (address: string) => ({ requestIP: () => ({ address, family: 'IPv4', port: 50_000 }) })
    expect(await statuses(fetch, (client) => [{}, server(client)])).toEqual(ownBudgets)
  })

  it('Deno: info.remoteAddr', async () => {
    const { fetch } = onDeno(localAccounts())
    const info = (hostname: string) => ({ remoteAddr: { transport: 'tcp', hostname, port: 50_000 } })
    expect(await statuses(fetch, (client) => [{}, info(client)])).toEqual(ownBudgets)
  })

  it('Workers: CF-Connecting-IP', async () => {
    const { fetch } = onWorkers(localAccounts())
    expect(await statuses(fetch, (client) => [{ 'cf-connecting-ip': client }, {}])).toEqual(ownBudgets)
  })

  it('Next.js: the rightmost X-Forwarded-For entry, a spoofed leftmost one ignored', async () => {
    const { fetch } = onNext(localAccounts())
    const forwarded = (client: string): [Record<string, string>, unknown] => [
      { 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 250)}, ${client}` },
      { params: Promise.resolve({}) },
    ]
    expect(await statuses(fetch, forwarded)).toEqual(ownBudgets)
  })

  it('no source: every request counts under one shared key, never skipped', async () => {
    const local = localAccounts()
    const { fetch } = createFetchSecurity({ mechanisms: local.mechanisms, local })
    const seen = await statuses(fetch, (client) => [{ 'x-forwarded-for': client }, undefined])
    expect(seen).toEqual([401, 401, 401, 429, 429])
  })
})
