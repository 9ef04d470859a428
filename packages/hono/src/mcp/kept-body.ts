/** The own symbol under which the server's lightweight `Response` keeps what it was made with. */
let keptUnder: symbol | undefined

function kept(response: Response): unknown {
  const holder = response as unknown as Record<symbol, unknown>
  if (keptUnder !== undefined) return holder[keptUnder]
  for (const key of Object.getOwnPropertySymbols(response)) {
    if (key.description === 'cache' && Array.isArray(holder[key])) {
      keptUnder = key
      return holder[key]
    }
  }
  return undefined
}

/**
 * The body a handler's `Response` was made with, on `@hono/node-server`: its lightweight `Response`
 * keeps `[status, body, headers]` as given (a string, bytes or none) until something reads it as a
 * stream, so an in-process read takes the body as is instead of making a stream and reading it back.
 * Undefined for any other response (another runtime, a stream or `Blob` body, a response read already):
 * that one is read from its stream.
 */
export function keptBody(response: Response): string | Uint8Array | null | undefined {
  const state = kept(response)
  if (!Array.isArray(state) || state.length !== 3 || state[0] !== response.status) return undefined
  const body: unknown = state[1]
  return body === null || typeof body === 'string' || body instanceof Uint8Array ? body : undefined
}
