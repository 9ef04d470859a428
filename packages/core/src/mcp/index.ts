export type {
  BlobResourceContents,
  ContentsOptions,
  MCPResourceResponse,
  ResourceContents,
  TextResourceContents,
} from './contents.js'
export { isTextMediaType, mediaTypeEssence, toResourceContents } from './contents.js'
export type {
  MCPDispatcherOptions,
  MCPDispatchOptions,
  MCPDispatchResult,
  MCPServerInfo,
} from './dispatcher.js'
export { MCPDispatcher } from './dispatcher.js'
export type {
  JsonRpcErrorObject,
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcResponse,
  JsonRpcSuccess,
} from './jsonrpc.js'
export { JSON_RPC_ERROR } from './jsonrpc.js'
export type {
  EmbeddedBlobContent,
  MCPAnnotations,
  MCPBlobResourceInit,
  MCPResourceLinkInit,
  ResourceLinkContent,
} from './links.js'
export { DEFAULT_MAX_BLOB_BYTES, MCPBlobResource, MCPResourceLink } from './links.js'
export type { MCPCacheHint, MCPCacheScope } from './modern.js'
export {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  negotiateProtocolVersion,
  SUPPORTED_MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './protocol.js'
export type { MCPResourceReader } from './read.js'
export type {
  MCPConcreteResource,
  MCPRegisteredResource,
  MCPResolvedResource,
  MCPResourceDefinition,
  MCPResourceRegistryOptions,
  MCPTemplateResource,
} from './registry.js'
export { MCPResourceRegistry } from './registry.js'
export type { RefusedSkillFile, SkillCatalog, SkillCatalogOptions, SkillFile } from './skills.js'
export { loadSkillCatalog } from './skills.js'
export type { UriTemplate } from './template.js'
export { parseUriTemplate } from './template.js'
