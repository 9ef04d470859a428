import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { loopbackCertificate } from '@portcullis/test-support/certificates'

/** The test hosts' certificate: 127.0.0.1, [::1], localhost and the test host names (made at run time). */
const certificate = loopbackCertificate({
  commonName: 'portcullis test loopback',
  extraNames: ['IP:::1', 'DNS:docs.test', 'DNS:private.test', 'DNS:mapped.test'],
})

/** The test certificate's PEM (trusted by the servers under test through `clientIdMetadataDocuments.ca`). */
export const TEST_CA = certificate.cert

export interface DocumentRoute {
  readonly status?: number
  readonly headers?: Record<string, string>
  /** A JSON value (serialized) or raw text. */
  readonly body: unknown
  /** Waits this long before answering. */
  readonly delayMs?: number
  /** Sends the body in chunks without a content-length. */
  readonly chunked?: boolean
  /** Sends the headers and half the body at once, the rest after this long. */
  readonly dribbleMs?: number
}

/** An https server on 127.0.0.1 serving Client ID Metadata Documents from a route table; counts hits. */
export class DocumentServer {
  readonly routes = new Map<string, DocumentRoute>()
  readonly hits = new Map<string, number>()
  #server: Server | undefined
  origin = ''

  async start(): Promise<this> {
    this.#server = createServer({ key: certificate.key, cert: TEST_CA }, (req, res) => {
      const path = req.url ?? '/'
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1)
      const route = this.routes.get(path)
      if (route === undefined) {
        res.writeHead(404).end()
        return
      }
      const send = () => {
        const body = typeof route.body === 'string' ? route.body : JSON.stringify(route.body)
        if (res.destroyed) return
        res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers })
        if (route.dribbleMs !== undefined) {
          const half = Math.floor(body.length / 2)
          res.write(body.slice(0, half))
          setTimeout(() => res.destroyed || res.end(body.slice(half)), route.dribbleMs).unref()
        } else if (route.chunked === true) {
          const half = Math.floor(body.length / 2)
          res.write(body.slice(0, half))
          res.end(body.slice(half))
        } else res.end(body)
      }
      if (route.delayMs === undefined) send()
      else setTimeout(send, route.delayMs).unref()
    })
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve))
    this.origin = `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`
    return this
  }

  /** Publishes a client document at `path` whose `client_id` is its own URL (unless overridden). */
  client(path: string, metadata: Record<string, unknown> = {}): string {
    const clientId = `${this.origin}${path}`
    this.routes.set(path, {
      body: {
        client_id: clientId,
        client_name: 'Test MCP client',
        redirect_uris: ['http://127.0.0.1/callback'],
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        ...metadata,
      },
    })
    return clientId
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections()
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve())
  }
}
