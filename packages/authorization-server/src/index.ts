export type { ErrorPage, InteractionHandler } from './interaction-handler.js'
export { GRANT_ID_CLAIM } from './interaction-handler.js'
export type { ConsentScope, ConsentView } from './interactions/consent-view.js'
export { consentBody, consentTitle, renderDefaultConsent } from './interactions/consent-view.js'
export { createInteractions } from './interactions/create-interactions.js'
export { InteractionErrorCodes } from './interactions/error-codes.js'
export type {
  ConsentedGrant,
  ImpersonationRefusedConsent,
  InteractionReauthentication,
  InteractionsOptions,
  InteractionUser,
  Reauthentication,
} from './interactions/options.js'
export { InteractionsErrorCodes, OAUTH_AUTHORIZE_PURPOSE } from './interactions/options.js'
export type { InteractionLayout, InteractionPage } from './interactions/pages.js'
export { defaultLayout, escapeHtml } from './interactions/pages.js'
export type { StepUpReauthenticationOptions } from './interactions/reauthentication.js'
export { ReauthenticationUnavailableError, stepUpReauthentication } from './interactions/reauthentication.js'
export type { AuthorizationServer, ConnectedApp, NodeListener } from './server/create-server.js'
export { createAuthorizationServer } from './server/create-server.js'
export type { FastifyInstanceLike, FastifyReplyLike } from './server/fastify-mount.js'
export { fastifyMount } from './server/fastify-mount.js'
export type {
  AuthorizationServerOptions,
  ClientIdMetadataDocumentOptions,
  ClientOptions,
  RegistrationOptions,
  RegistrationRateLimitOptions,
  ResourceOptions,
} from './server/options.js'
export type { AddressLookup } from './server/outbound-fetch.js'
export { isAllowedAddress } from './server/outbound-fetch.js'
export type { SigningAlgorithm, SigningJwk } from './server/signing-keys.js'
export { generateSigningKey } from './server/signing-keys.js'
