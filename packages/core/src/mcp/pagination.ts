import { JSON_RPC_ERROR, RpcError } from './jsonrpc.js'

const PREFIX = 'o:'

function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${offset}`, 'utf8').toString('base64url')
}

/** Decodes an opaque cursor; anything this server did not issue (in canonical form) is -32602. */
function decodeCursor(cursor: unknown, total: number): number {
  if (typeof cursor !== 'string')
    throw new RpcError(JSON_RPC_ERROR.INVALID_PARAMS, 'Invalid cursor: must be a string')
  const text = /^[A-Za-z0-9_-]{1,32}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : ''
  const match = /^o:(0|[1-9][0-9]{0,8})$/.exec(text)
  const offset = match === null ? Number.NaN : Number(match[1])
  if (!(offset <= total) || encodeCursor(offset) !== cursor) {
    throw new RpcError(JSON_RPC_ERROR.INVALID_PARAMS, 'Invalid cursor')
  }
  return offset
}

/** One page of `items` starting at the cursor; `nextCursor` only when more items follow. */
export function paginate<T>(
  items: readonly T[],
  params: Readonly<Record<string, unknown>> | undefined,
  pageSize: number,
): { readonly page: readonly T[]; readonly nextCursor?: string } {
  const cursor = params?.cursor
  const offset = cursor === undefined ? 0 : decodeCursor(cursor, items.length)
  const end = offset + pageSize
  const page = items.slice(offset, end)
  return end < items.length ? { page, nextCursor: encodeCursor(end) } : { page }
}
