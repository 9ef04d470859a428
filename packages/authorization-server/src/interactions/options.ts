import type { IncomingMessage } from 'node:http'
import type { Impersonator } from '@portcullis/core/authentication'
import { ConfigurationError, type OptionsShape, readOptions } from '@portcullis/core/errors'
import type { SecurityNoticeSource } from '@portcullis/core/local-accounts'
import type { ConsentView } from './consent-view.js'
import type { InteractionLayout } from './pages.js'

/** The user the application's own session signs in, as the interaction sees it. */
export interface InteractionUser {
  readonly accountId: string
  /**
   * The account as its owner knows it (a display name, the username, an email address), shown on the
   * consent page; the account id when absent.
   */
  readonly name?: string
  /** When the user last proved who they are (the session's sign-in); becomes `auth_time`. */
  readonly authenticatedAt: Date
  readonly amr?: readonly string[]
  readonly acr?: string
  /**
   * The administrator acting as the user, when the application's session is an impersonation (the
   * principal's `impersonator`). An impersonation never connects an app: the consent page refuses it
   * (403, with only Deny), since the grant and its tokens would outlast the impersonation.
   */
  readonly impersonator?: Impersonator
}

/** A consent an impersonation was refused, for the application's security log. */
export interface ImpersonationRefusedConsent {
  readonly accountId: string
  readonly impersonator: Impersonator
  readonly clientId: string
}

/** What a consumed reauthentication proves. */
export interface Reauthentication {
  readonly authenticatedAt: Date
  /** How the user reauthenticated, when known; replaces the session's `amr` / `acr`. */
  readonly amr?: readonly string[]
  readonly acr?: string
}

/**
 * The application's reauthentication (its step-up pages), for `prompt=login` and `max_age`: the
 * interaction sends the user to `url(returnTo)` and, back on the interaction, consumes the one-use
 * credential the reauthentication left for `purpose` (`oauth-authorize`) and this account.
 * `stepUpReauthentication` builds one over a `StepUpService`.
 */
export interface InteractionReauthentication {
  url(returnTo: string): string
  consume(
    req: IncomingMessage,
    request: { readonly purpose: string; readonly accountId: string },
  ): Promise<Reauthentication | undefined>
}

export interface InteractionsOptions {
  /** The signed-in user of the application's session, or undefined when nobody is signed in. */
  currentUser(req: IncomingMessage): Promise<InteractionUser | undefined>
  /** The application's sign-in page; the user comes back to `returnTo` (the interaction) afterwards. */
  signInUrl(returnTo: string): string
  /** The application's reauthentication, for `prompt=login` and `max_age`. */
  readonly reauthentication: InteractionReauthentication
  /** Shown beside each scope on the consent page. */
  readonly scopeDescriptions?: Readonly<Record<string, string>>
  /**
   * The application's look for every page (consent, errors, a refused authorization request shown to a
   * browser): wraps the page's content in the application's layout. Default: a plain built-in layout.
   */
  readonly layout?: InteractionLayout
  /**
   * Replaces the whole consent page (`layout` is then not used for it); whatever it returns is sent as
   * `text/html`.
   */
  readonly renderConsent?: (view: ConsentView) => string
  /** Largest accepted consent form body. Default 8 KiB, at most 64 KiB. */
  readonly maxBodyBytes?: number
  /** Told of unexpected failures (answered 500 without detail); never given a secret. */
  readonly onError?: (error: unknown) => void
  /**
   * Writes the "an app was connected" security notification (`mcp-client-connected`) in the grant's
   * transaction when an approval creates the grant (a client connected for the first time, or again
   * after a disconnection; not for more scopes on a connected client): the application's
   * `SecurityNotifier`. The authorization server's store must take the outbox (`PostgresOAuthServerStore`,
   * or `MemoryOAuthServerStore({ outbox })`). The client's name is cleaned for the mail (controls and
   * encoded words removed, at most 200 characters).
   */
  readonly securityNotices?: SecurityNoticeSource
  /**
   * Told when the consent page refused an impersonation (shown to it, or its Allow posted): the hook for
   * the application's security log (`Impersonations.recordRefusal`, act `oauth.consent`). Never fails
   * or delays the page; a throw goes to `onError`.
   */
  readonly onImpersonationRefused?: (refusal: ImpersonationRefusedConsent) => void
  /**
   * Told after the user approved a client and its grant was saved: the hook for anything else the
   * application does then (its activity log, analytics). Mail the connection with `securityNotices`
   * instead, which writes it with the grant. Runs after the grant is saved and never fails or delays the
   * authorization; a throw or rejection goes to `onError`.
   */
  readonly onConsented?: (grant: ConsentedGrant) => unknown
}

/** A grant the user just approved. */
export interface ConsentedGrant {
  readonly accountId: string
  readonly clientId: string
  /** The client's name as the consent page showed it (its host or id when it has no name). */
  readonly clientName: string
}

/** The step-up purpose the interaction consumes for `prompt=login` and `max_age`. */
export const OAUTH_AUTHORIZE_PURPOSE = 'oauth-authorize'

export const InteractionsErrorCodes = Object.freeze({
  options: 'authorization_server.interactions_options',
  maxBodyBytes: 'authorization_server.interactions_max_body_bytes',
} as const)

const SHAPE: OptionsShape<InteractionsOptions> = {
  currentUser: { required: true, kind: 'function', code: InteractionsErrorCodes.options },
  signInUrl: { required: true, kind: 'function', code: InteractionsErrorCodes.options },
  reauthentication: {
    required: true,
    kind: 'object',
    code: InteractionsErrorCodes.options,
    check: (value) => {
      const candidate = value as Partial<InteractionReauthentication>
      return typeof candidate.url === 'function' && typeof candidate.consume === 'function'
        ? undefined
        : 'must have url(returnTo) and consume(req, request)'
    },
  },
  scopeDescriptions: {
    kind: 'object',
    code: InteractionsErrorCodes.options,
    check: (value) =>
      Object.values(value as object).every((text) => typeof text === 'string')
        ? undefined
        : 'must map scope names to strings',
  },
  layout: { kind: 'function', code: InteractionsErrorCodes.options },
  renderConsent: { kind: 'function', code: InteractionsErrorCodes.options },
  maxBodyBytes: { kind: 'number', code: InteractionsErrorCodes.maxBodyBytes },
  onError: { kind: 'function', code: InteractionsErrorCodes.options },
  onConsented: { kind: 'function', code: InteractionsErrorCodes.options },
  onImpersonationRefused: { kind: 'function', code: InteractionsErrorCodes.options },
  securityNotices: {
    kind: 'object',
    code: InteractionsErrorCodes.options,
    check: (value) =>
      typeof (value as SecurityNoticeSource).entries === 'function' ? undefined : 'must have entries',
  },
}

export const DEFAULT_MAX_BODY_BYTES = 8 * 1024
const MAX_BODY_BYTES = 64 * 1024

/** Validates the options once, at startup. */
export function readInteractionsOptions(options: InteractionsOptions): InteractionsOptions {
  readOptions(options, 'createInteractions', SHAPE)
  const limit = options.maxBodyBytes
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 256 || limit > MAX_BODY_BYTES)) {
    throw new ConfigurationError(
      InteractionsErrorCodes.maxBodyBytes,
      `maxBodyBytes must be an integer from 256 to ${MAX_BODY_BYTES}`,
      { option: 'createInteractions.maxBodyBytes' },
    )
  }
  return options
}
