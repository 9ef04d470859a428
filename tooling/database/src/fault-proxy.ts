import { createServer, type Server, Socket } from 'node:net'

export interface FaultProxyOptions {
  /** Where connections are forwarded (the real Postgres server). */
  readonly targetHost: string
  readonly targetPort: number
}

/**
 * A loopback TCP proxy between a client and a server that a test can break on purpose: cut every open
 * connection, stall traffic (bytes are held, not lost), or take the proxy down (new connections refused)
 * and bring it back on the same port. Written for Postgres fault tests; it knows nothing of the protocol.
 */
export interface FaultProxy {
  /** `127.0.0.1:<port>` of the listening proxy. */
  readonly host: string
  readonly port: number
  /** Rewrites a `postgres://` URL of the target so it goes through the proxy. */
  through(connectionString: string): string
  /** Connections currently open through the proxy. */
  readonly openConnections: number
  /** Destroys every open connection (both sides), as a network cut or a failover does. */
  cut(): void
  /** Holds every byte in both directions until `resume()`; new connections are held too. */
  stall(): void
  resume(): void
  /** Cuts every connection and stops listening: new connections are refused until `up()`. */
  down(): Promise<void>
  /** Listens again on the same port. */
  up(): Promise<void>
  close(): Promise<void>
}

interface Pair {
  readonly client: Socket
  readonly upstream: Socket
  /** Whether both directions are piped (the upstream connected): only then may a stream flow. */
  piped: boolean
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const pairs = new Set<Pair>()
  let stalled = false
  let server: Server | undefined

  const pump = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (!to.write(chunk)) from.pause()
    })
    to.on('drain', () => {
      if (!stalled) from.resume()
    })
  }

  const accept = (client: Socket) => {
    const upstream = new Socket()
    const pair: Pair = { client, upstream, piped: false }
    pairs.add(pair)
    const drop = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', drop)
    client.on('close', drop)
    upstream.on('error', drop)
    upstream.on('close', drop)
    // Held until the upstream is connected: what the client sends first (a startup message) waits in
    // the socket's buffer, never flows to no listener.
    client.pause()
    upstream.connect(options.targetPort, options.targetHost, () => {
      pump(client, upstream)
      pump(upstream, client)
      pair.piped = true
      if (stalled) {
        upstream.pause()
      } else {
        client.resume()
        upstream.resume()
      }
    })
  }

  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const next = createServer(accept)
      next.once('error', reject)
      next.listen(port, '127.0.0.1', () => resolve(next))
    })

  server = await listen(0)
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0

  const cut = () => {
    for (const pair of [...pairs]) {
      pair.client.destroy()
      pair.upstream.destroy()
    }
    pairs.clear()
  }
  const stopListening = async () => {
    const current = server
    server = undefined
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()))
  }

  return {
    host: '127.0.0.1',
    port,
    through(connectionString) {
      const url = new URL(connectionString)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      return url.toString()
    },
    get openConnections() {
      return pairs.size
    },
    cut,
    stall() {
      stalled = true
      for (const pair of pairs) {
        pair.client.pause()
        pair.upstream.pause()
      }
    },
    resume() {
      stalled = false
      for (const pair of pairs) {
        // A connection accepted while stalled flows once its upstream is connected.
        if (!pair.piped) continue
        pair.client.resume()
        pair.upstream.resume()
      }
    },
    async down() {
      const closing = stopListening()
      cut()
      await closing
    },
    async up() {
      if (server === undefined) server = await listen(port)
    },
    async close() {
      const closing = stopListening()
      cut()
      await closing
    },
  }
}
