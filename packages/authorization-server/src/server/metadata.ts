import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { InvalidInputError } from '@portcullis/core/errors'

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown

/**
 * The metadata document as the provider serves it to a request on the issuer's own host, obtained
 * in process (no network): a GET of `{issuer path}/.well-known/oauth-authorization-server`.
 */
export function inProcessMetadata(
  listener: Listener,
  issuer: URL,
  mountPath: string,
): Promise<Record<string, unknown>> {
  const socket = new Socket()
  if (issuer.protocol === 'https:') Object.defineProperty(socket, 'encrypted', { value: true })
  const req = new IncomingMessage(socket)
  req.method = 'GET'
  req.url = '/.well-known/oauth-authorization-server'
  req.headers = { host: issuer.host, accept: 'application/json' }
  Object.assign(req, { originalUrl: `${mountPath}${req.url}` })
  req.push(null)
  const res = new ServerResponse(req)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    res.write = ((chunk: unknown) => {
      if (chunk !== undefined && chunk !== null) chunks.push(Buffer.from(chunk as string))
      return true
    }) as typeof res.write
    res.end = ((chunk?: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function')
        chunks.push(Buffer.from(chunk as string))
      try {
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`)
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      } catch (cause) {
        reject(
          new InvalidInputError(
            'authorization_server.metadata_unavailable',
            'the metadata document could not be read',
            { cause },
          ),
        )
      }
      return res
    }) as typeof res.end
    Promise.resolve(listener(req, res)).catch(reject)
  })
}
