import { bodyTooLargeProblem, parseRequestBody, readLimitedBody } from '@portcullis/http/body'
import { type HttpAnswer, type HttpExchange, type NeutralRoute, prefersJson } from '@portcullis/http/exchange'
import { localProblem } from '@portcullis/http/local-accounts'
import { HttpProblem } from '@portcullis/http/problem'
import { rawHeader } from '@portcullis/http/security'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { sendProblem } from '../problem/send-problem.js'
import { securityOf } from '../security/request-context.js'

/** The Fastify request and reply behind an exchange (what application callbacks receive). */
export interface FastifyNative {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
}

/**
 * The body of a generated route that was over its limit: the scope's parser reads at most the limit
 * and hands this on, so the route itself answers the 413 (and may report it), as on every adapter.
 */
const TOO_LARGE: unique symbol = Symbol('portcullis.body-too-large')

/** What the core services need to know about the request (client address, user agent). */
export function requestInfo(request: FastifyRequest) {
  return {
    peerAddress: request.raw.socket?.remoteAddress,
    forwardedFor: request.headers['x-forwarded-for'],
    userAgent: request.headers['user-agent'],
  }
}

/** The framework-neutral view of a Fastify request for a generated route. */
export function fastifyExchange(request: FastifyRequest, reply: FastifyReply): HttpExchange<FastifyNative> {
  const url = request.raw.url ?? ''
  const query = url.indexOf('?')
  return {
    method: request.method,
    params: request.params as Record<string, string>,
    query: query === -1 ? '' : url.slice(query + 1),
    header: (name) => rawHeader(request.raw.rawHeaders, name),
    cookieHeader: request.headers.cookie,
    security: securityOf(request),
    requestInfo: requestInfo(request),
    wantsJson: prefersJson(request.headers.accept),
    // the generated routes' scope reads bodies as bytes, at most the limit, parsed here
    body: async (limit) => {
      if (request.body === TOO_LARGE) throw new HttpProblem(bodyTooLargeProblem(limit))
      return Buffer.isBuffer(request.body)
        ? parseRequestBody(request.body, request.headers['content-type'])
        : request.body
    },
    appendSetCookie: (value) => {
      reply.header('set-cookie', value)
    },
    native: { request, reply },
  }
}

/** Writes a neutral answer: `Set-Cookie` values, headers, then the JSON body or nothing. */
export function writeAnswer(reply: FastifyReply, answer: HttpAnswer): FastifyReply {
  for (const cookie of answer.setCookies ?? []) reply.header('set-cookie', cookie)
  const headers = answer.headers ?? {}
  reply.headers(headers).code(answer.status)
  if (answer.json === undefined) return reply.send()
  const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
  return reply.send(typed ? JSON.stringify(answer.json) : answer.json)
}

/**
 * Registers a neutral route table in its own scope: bodies are read as bytes up to `bodyLimit` (parsed,
 * or refused with 413, by the neutral layer when the route asks for the body), every answer is
 * `no-store`; an error of a local-account route is rendered as a problem here (a typed error keeps its
 * client-safe detail) after `onError` saw it, any other goes to Fastify's error handler.
 */
export function registerNeutralRoutes(
  fastify: FastifyInstance,
  routes: readonly NeutralRoute<FastifyNative>[],
  settings: {
    readonly bodyLimit: number
    readonly onError: ((error: unknown, request: FastifyRequest) => void) | undefined
  },
): void {
  fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    // Bytes up to the limit; a larger body is drained and becomes TOO_LARGE, answered by the route.
    scope.addContentTypeParser('*', (request, payload, done) => {
      readLimitedBody(payload, request.headers['content-length'], settings.bodyLimit).then(
        (raw) => done(null, raw ?? TOO_LARGE),
        (error: Error) => done(error, undefined),
      )
    })
    for (const route of routes) {
      scope.route({
        method: route.method,
        url: route.path,
        config: route.options,
        bodyLimit: settings.bodyLimit,
        handler: async (request, reply) => {
          reply.header('cache-control', 'no-store')
          try {
            return writeAnswer(reply, await route.handle(fastifyExchange(request, reply)))
          } catch (error) {
            // errors of other generated routes go to Fastify's error handler (the plugin's problem+json)
            if (route.errors !== 'local') throw error
            try {
              settings.onError?.(error, request)
            } catch {
              // A failing observer must not change the answer.
            }
            return sendProblem(reply, localProblem(error))
          }
        },
      })
    }
  })
}
