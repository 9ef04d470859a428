import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'

/**
 * Serves the authorization server's interaction pages (sign-in through the application's own session,
 * reauthentication for `prompt=login` / `max_age`, consent) under `{issuer path}/interaction/{uid}`.
 * The server sends every request under that prefix here; `req.url` is relative to the issuer's path
 * (`/interaction/{uid}...`). The handler ends each interaction with `provider.interactionFinished`.
 */
export interface InteractionHandler {
  handle(req: IncomingMessage, res: ServerResponse, provider: Provider): Promise<void>
  /**
   * The HTML page of an error shown to a browser (a refused authorization request), in the
   * application's look; without it, browsers get the built-in error page.
   */
  errorPage?(req: IncomingMessage, error: ErrorPage): Promise<string>
}

/** An error as a browser is shown it: plain text, escaped by the page. */
export interface ErrorPage {
  readonly status: number
  /** The stable code (an OAuth `error`, an interaction code), shown for support. */
  readonly code: string
  readonly title: string
  readonly detail: string
  /** The technical reason (an OAuth `error_description`), for developers; never a secret. */
  readonly technical?: string
}

/** The private claim of every access token that names its grant (the resource side checks it). */
export const GRANT_ID_CLAIM = 'grant_id'
