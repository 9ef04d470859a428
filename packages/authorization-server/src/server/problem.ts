import type { ServerResponse } from 'node:http'

/** An RFC 9457 problem document with the stable `code`; `detail` only when it is safe to show. */
export function problemBody(status: number, code: string, detail?: string): Record<string, unknown> {
  return {
    type: 'about:blank',
    title: code.replaceAll('_', ' '),
    status,
    code,
    ...(detail === undefined ? {} : { detail }),
  }
}

/** Answers with a problem document (and `Cache-Control: no-store`). */
export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  options: { readonly detail?: string; readonly headers?: Readonly<Record<string, string>> } = {},
): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = JSON.stringify(problemBody(status, code, options.detail))
  res.writeHead(status, {
    'content-type': 'application/problem+json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    ...options.headers,
  })
  res.end(body)
}
