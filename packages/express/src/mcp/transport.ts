import type { MCPDispatchResult } from '@portcullis/core/mcp'
import {
  type MCPAnswer,
  type OriginPolicy,
  originRefusal,
  readLimitedBody,
  resultAnswer,
  rpcErrorAnswer,
} from '@portcullis/http'
import type { Request, Response } from 'express'

function write(response: Response, answer: MCPAnswer): void {
  response.statusCode = answer.status
  for (const name in answer.headers) response.setHeader(name, answer.headers[name] as string)
  response.end(answer.body)
}

export function sendRpcError(
  response: Response,
  status: number,
  code: number,
  message: string,
  data?: unknown,
): void {
  write(response, rpcErrorAnswer(status, code, message, data))
}

/** Streamable HTTP answer: 202 with no body, otherwise JSON (or SSE when the client accepts only SSE). */
export function sendResult(request: Request, response: Response, result: MCPDispatchResult): void {
  write(response, resultAnswer(result, request.headers.accept))
}

/** The origin and DNS-rebinding check of the neutral layer, with Express's `trust proxy` setting. */
export function refusal(request: Request, policy: OriginPolicy): string | undefined {
  return originRefusal(
    {
      host: request.headers.host,
      origin: request.headers.origin,
      localAddress: request.socket.localAddress,
      trustProxy: request.app.enabled('trust proxy'),
    },
    policy,
  )
}

/** Reads the raw body up to `limit` bytes; `undefined` when it is larger. */
export function readBody(request: Request, limit: number): Promise<Buffer | undefined> {
  return readLimitedBody(request, request.headers['content-length'], limit)
}
