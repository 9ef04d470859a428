import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AuthorizationServer } from './create-server.js'

/** The parts of a Fastify instance the mount uses (structural: this package does not import fastify). */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): void
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void,
  ): void
  all(path: string, handler: (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => void): void
}

export interface FastifyReplyLike {
  raw: ServerResponse
  hijack(): void
}

/**
 * A Fastify plugin serving the authorization server; register it with the issuer's path as prefix:
 * `app.register(fastifyMount(server), { prefix: '/oauth' })`. Bodies are left unread for oidc-provider
 * (content-type parsing is disabled in the plugin's scope) and each reply is hijacked.
 */
export function fastifyMount(
  server: Pick<AuthorizationServer, 'handler'>,
): (instance: FastifyInstanceLike) => Promise<void> {
  return async (instance) => {
    instance.removeAllContentTypeParsers()
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null))
    const route = (request: { raw: IncomingMessage }, reply: FastifyReplyLike) => {
      reply.hijack()
      server.handler(request.raw, reply.raw)
    }
    instance.all('/', route)
    instance.all('/*', route)
  }
}
