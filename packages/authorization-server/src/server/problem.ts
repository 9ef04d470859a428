import type { ServerResponse } from 'node:http'
import { problemBody as httpProblemBody, renderProblem } from '@portcullis/http/problem'
import type { KoaContextWithOIDC } from 'oidc-provider'
import type { ErrorPage, InteractionHandler } from '../interaction-handler.js'
import { secureHeaders } from '../interactions/http.js'
import { defaultLayout, errorBody } from '../interactions/pages.js'

/** An RFC 9457 problem document with the stable `code` (the HTTP layer's); `detail` when safe to show. */
export function problemBody(status: number, code: string, detail?: string): Record<string, unknown> {
  return { ...httpProblemBody({ status, code, ...(detail === undefined ? {} : { detail }) }) }
}

/**
 * Answers with a problem document, rendered by the HTTP layer (`Cache-Control: no-store`, and a
 * `Retry-After` on every 429 and 503).
 */
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
  const rendered = renderProblem({
    status,
    code,
    ...(options.detail === undefined ? {} : { detail: options.detail }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  })
  res.writeHead(rendered.status, { ...rendered.headers, 'Content-Length': Buffer.byteLength(rendered.body) })
  res.end(rendered.body)
}

const REFUSED: Pick<ErrorPage, 'title' | 'detail'> = {
  title: 'This authorization request was refused',
  detail:
    'The application that sent you here asked for something this server cannot accept, so nothing was shared with it. Return to the application and try again; if it keeps happening, tell its developer.',
}

/**
 * oidc-provider's `renderError`: an OAuth error it cannot send to the client's redirect URI (an unknown
 * client, a redirect URI that is not the client's, a malformed request). A browser (its navigation
 * accepts `text/html`) gets an HTML page in the application's look (the interactions' `errorPage`), any
 * other client `application/problem+json` with the OAuth `error` as its `code`.
 */
export function renderProviderError(pages: Pick<InteractionHandler, 'errorPage'>) {
  return async (
    ctx: KoaContextWithOIDC,
    out: { readonly error?: unknown; readonly error_description?: unknown },
  ): Promise<void> => {
    const status = Math.max(ctx.status, 400)
    const code = String(out.error ?? 'server_error')
    const description = typeof out.error_description === 'string' ? out.error_description : undefined
    ctx.status = status
    if (!(ctx.req.headers.accept ?? '').includes('text/html')) {
      ctx.type = 'application/problem+json'
      ctx.body = problemBody(status, code, description)
      return
    }
    const page: ErrorPage = {
      status,
      code,
      ...(status >= 500
        ? {
            title: 'Something went wrong',
            detail: 'The authorization could not be completed. Try again in a moment.',
          }
        : REFUSED),
      ...(description === undefined || status >= 500 ? {} : { technical: description }),
    }
    const html =
      pages.errorPage === undefined
        ? defaultLayout({ title: page.title, body: errorBody(page.detail, page.code, page.technical) })
        : await pages.errorPage(ctx.req, page)
    secureHeaders(ctx.res)
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = html
  }
}
