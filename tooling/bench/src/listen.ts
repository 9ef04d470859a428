import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ListeningServer {
  readonly url: string
  close(): Promise<void>
}

/** Serves a request listener (an Express app, say) on an ephemeral 127.0.0.1 port. */
export async function listen(handler: RequestListener): Promise<ListeningServer> {
  const server = createServer({ keepAlive: true }, handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
