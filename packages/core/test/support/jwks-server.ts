// A real JWKS endpoint on 127.0.0.1 for tests: serves whatever document the test sets, counts hits,
// and can fail, hang, redirect or answer 304 on demand.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type JwksBehaviour =
  | { readonly kind: 'serve' }
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'raw'; readonly body: string | Buffer; readonly headers?: Record<string, string> }

export interface JwksServer {
  readonly url: string
  /** Requests received so far. */
  readonly hits: number
  readonly requests: readonly IncomingMessage['headers'][]
  setDocument(document: unknown, headers?: Record<string, string>): void
  setBehaviour(behaviour: JwksBehaviour): void
  close(): Promise<void>
}

export async function startJwksServer(path = '/jwks.json'): Promise<JwksServer> {
  let body = JSON.stringify({ keys: [] })
  let headers: Record<string, string> = {}
  let behaviour: JwksBehaviour = { kind: 'serve' }
  let hits = 0
  const requests: IncomingMessage['headers'][] = []
  const hanging = new Set<ServerResponse>()

  const server = createServer((request, response) => {
    hits++
    requests.push(request.headers)
    if (request.url !== path) {
      response.writeHead(404).end()
      return
    }
    switch (behaviour.kind) {
      case 'serve': {
        const etag = headers.etag
        if (etag !== undefined && request.headers['if-none-match'] === etag) {
          response.writeHead(304, headers).end()
          return
        }
        response.writeHead(200, { 'content-type': 'application/json', ...headers }).end(body)
        return
      }
      case 'status':
        response.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('nope')
        return
      case 'hang':
        hanging.add(response)
        return
      case 'reset':
        request.socket.destroy()
        return
      case 'redirect':
        response.writeHead(302, { location: behaviour.location }).end()
        return
      case 'raw':
        response
          .writeHead(200, { 'content-type': 'application/json', ...behaviour.headers })
          .end(behaviour.body)
        return
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    get hits() {
      return hits
    },
    requests,
    setDocument(document, extraHeaders = {}) {
      body = JSON.stringify(document)
      headers = extraHeaders
      behaviour = { kind: 'serve' }
    },
    setBehaviour(next) {
      behaviour = next
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const response of hanging) response.destroy()
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
