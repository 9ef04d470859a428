/**
 * What `@hono/node-server`'s lightweight `Response` keeps as given until something reads it as a full
 * `Response` (its body as a stream, say): its status, its body (a string, bytes or none) and the headers
 * it was made with. Read only: a response is never changed through it.
 */
export interface KeptResponse {
  readonly status: number
  readonly body: string | Uint8Array | null
  /** A `Headers`, a plain record or undefined, as the response was made. */
  readonly headers: unknown
}

/** The own symbol under which the lightweight `Response` keeps `[status, body, headers]`. */
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
 * The status, body and headers a response was made with, when it is `@hono/node-server`'s lightweight
 * `Response` still holding them; undefined for any other response (another runtime, a stream or `Blob`
 * body, a response read as a full one already), which is then handled through the `Response` API.
 */
export function keptResponse(response: Response): KeptResponse | undefined {
  const state = kept(response)
  if (!Array.isArray(state) || state.length !== 3 || state[0] !== response.status) return undefined
  const body: unknown = state[1]
  if (!(body === null || typeof body === 'string' || body instanceof Uint8Array)) return undefined
  return { status: state[0] as number, body, headers: state[2] }
}

/** The body a response was made with (see `keptResponse`): an in-process read takes it without a stream. */
export function keptBody(response: Response): string | Uint8Array | null | undefined {
  return keptResponse(response)?.body
}
