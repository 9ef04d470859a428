import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { accounts } from '@portcullis/core/oauth'

export interface RefreshCall {
  readonly refreshToken: string
}

/**
 * A provider's token and revocation endpoints (RFC 6749 section 6, RFC 7009) served over real HTTP
 * on loopback. Every refresh issues a fresh access and refresh token; refresh tokens it never issued
 * get `invalid_grant`. Calls are recorded so tests can count them.
 */
export class LoopbackIdentityProvider {
  readonly refreshCalls: RefreshCall[] = []
  readonly revoked: string[] = []
  /** Delay before answering a refresh, to widen race windows. */
  refreshDelayMs = 0
  /** While true, revocation answers 503. */
  revocationDown = false
  readonly #issued = new Set<string>()
  #barrier: { size: number; waiting: (() => void)[] } | undefined
  #counter = 0
  #server: Server | undefined
  #url = ''

  /**
   * Holds the next `size` refresh requests until all of them have arrived (at most `timeoutMs`), so
   * callers that are truly concurrent reach the provider together, whatever the scheduling.
   */
  holdRefreshes(size: number, timeoutMs = 2000): void {
    const barrier = { size, waiting: [] as (() => void)[] }
    this.#barrier = barrier
    setTimeout(() => this.#release(barrier), timeoutMs).unref()
  }

  #release(barrier: { waiting: (() => void)[] }): void {
    if (this.#barrier === barrier) this.#barrier = undefined
    for (const resume of barrier.waiting.splice(0)) resume()
  }

  async #wait(): Promise<void> {
    const barrier = this.#barrier
    if (barrier === undefined) return
    const arrived = new Promise<void>((resolve) => barrier.waiting.push(resolve))
    if (barrier.waiting.length >= barrier.size) this.#release(barrier)
    await arrived
  }

  /** Marks a refresh token as issued (the one handed out at login). */
  issue(refreshToken: string): void {
    this.#issued.add(refreshToken)
  }

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      this.#handle(request).then(
        ({ status, body }) => {
          response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          response.end(JSON.stringify(body))
        },
        () => {
          response.writeHead(500).end()
        },
      )
    })
    this.#server.listen(0, '127.0.0.1')
    await once(this.#server, 'listening')
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    const server = this.#server
    if (server === undefined) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /** A `TokenEndpointClient` that talks to this provider over fetch, as an application's would. */
  client(): accounts.TokenEndpointClient {
    const post = (path: string, form: Record<string, string>) =>
      fetch(`${this.#url}${path}`, {
        method: 'POST',
        redirect: 'error',
        signal: AbortSignal.timeout(5000),
        body: new URLSearchParams(form),
      })
    return {
      async refresh({ refreshToken }) {
        const response = await post('/token', { grant_type: 'refresh_token', refresh_token: refreshToken })
        const body = (await response.json()) as Record<string, unknown>
        if (response.status === 400 && body.error === 'invalid_grant') return { kind: 'invalid-grant' }
        if (!response.ok || typeof body.access_token !== 'string') throw new Error(`token ${response.status}`)
        return {
          kind: 'refreshed',
          tokens: {
            accessToken: body.access_token,
            expiresIn: Number(body.expires_in),
            ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
          },
        }
      },
      async revoke({ token, tokenTypeHint }) {
        const response = await post('/revoke', { token, token_type_hint: tokenTypeHint })
        await response.arrayBuffer()
        if (!response.ok) throw new Error(`revocation ${response.status}`)
      },
    }
  }

  async #handle(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    if (request.method === 'POST' && request.url === '/token') {
      const refreshToken = form.get('refresh_token') ?? ''
      this.refreshCalls.push({ refreshToken })
      await this.#wait()
      if (this.refreshDelayMs > 0) await sleep(this.refreshDelayMs)
      if (form.get('grant_type') !== 'refresh_token' || !this.#issued.has(refreshToken)) {
        return { status: 400, body: { error: 'invalid_grant' } }
      }
      this.#counter += 1
      const next = `rt-${this.#counter}-${Math.random().toString(36).slice(2)}`
      this.#issued.add(next)
      return {
        status: 200,
        body: {
          access_token: `at-${this.#counter}`,
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: next,
        },
      }
    }
    if (request.method === 'POST' && request.url === '/revoke') {
      if (this.revocationDown) return { status: 503, body: {} }
      this.revoked.push(form.get('token') ?? '')
      return { status: 200, body: {} }
    }
    return { status: 404, body: {} }
  }
}
