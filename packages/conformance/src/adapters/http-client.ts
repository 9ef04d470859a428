import { request as httpRequest } from 'node:http'

/** An answer as the suite reads it: status, lower-case headers (`set-cookie` as a list), text body. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly setCookies: readonly string[]
  readonly text: string
  json(): unknown
}

export interface Call {
  readonly method?: string
  readonly headers?: Readonly<Record<string, string | readonly string[]>>
  readonly body?: string | Buffer
}

/**
 * One request with the exact request target given (no URL normalisation, so dot segments and encoded
 * separators reach the server as written), over a fresh connection.
 */
export function call(base: string, target: string, init: Call = {}): Promise<Answer> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: init.method ?? 'GET',
        path: target,
        headers: { connection: 'close', ...(init.headers as Record<string, string | string[]>) },
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('error', reject)
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          const headers: Record<string, string | undefined> = {}
          for (const [name, value] of Object.entries(incoming.headers)) {
            headers[name] = Array.isArray(value) ? value.join(', ') : value
          }
          resolve({
            status: incoming.statusCode ?? 0,
            headers,
            setCookies: incoming.headers['set-cookie'] ?? [],
            text,
            json: () => JSON.parse(text),
          })
        })
      },
    )
    outgoing.on('error', reject)
    outgoing.end(init.body)
  })
}

/** The `name=value` part of each `Set-Cookie`, as a `Cookie` header. */
export function cookieHeader(setCookies: readonly string[]): string {
  return setCookies.map((line) => line.split(';')[0] as string).join('; ')
}
