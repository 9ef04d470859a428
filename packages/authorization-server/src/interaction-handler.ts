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
}

/** The private claim of every access token that names its grant (the resource side checks it). */
export const GRANT_ID_CLAIM = 'grant_id'
