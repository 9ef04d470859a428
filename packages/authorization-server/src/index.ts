export type { InteractionHandler } from './interaction-handler.js'
export { GRANT_ID_CLAIM } from './interaction-handler.js'
export type { AddressLookup } from './server/address-guard.js'
export { isAllowedAddress } from './server/address-guard.js'
export type { AuthorizationServer, ConnectedApp, NodeListener } from './server/create-server.js'
export { createAuthorizationServer } from './server/create-server.js'
export type { FastifyInstanceLike, FastifyReplyLike } from './server/fastify-mount.js'
export { fastifyMount } from './server/fastify-mount.js'
export type {
  AuthorizationServerOptions,
  ClientIdMetadataDocumentOptions,
  RegistrationOptions,
  ResourceOptions,
} from './server/options.js'
export type { SigningAlgorithm, SigningJwk } from './server/signing-keys.js'
export { generateSigningKey } from './server/signing-keys.js'
