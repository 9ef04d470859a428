import type { OptionsShape } from '@portcullis/core/errors'
import type { MCPServerInfo } from '@portcullis/core/mcp'
import type { MCPEndpointOptions } from './endpoint.js'
import type { MCPResourceMarkOptions } from './marking.js'
import type { ProtectedResourceOptions } from './protected-resource.js'
import type { SkillsOptions } from './setup.js'

const OPTION_INVALID = 'mcp.option_invalid'
const PROTECTED_RESOURCE_INVALID = 'mcp.protected_resource_invalid'
const SKILL_INVALID = 'mcp.skill_invalid'

const PROTECTED_RESOURCE_OPTIONS: OptionsShape<ProtectedResourceOptions> = {
  resource: { required: true, kind: 'string', code: PROTECTED_RESOURCE_INVALID },
  authorizationServers: {
    required: true,
    kind: 'array',
    elements: { kind: 'string' },
    code: PROTECTED_RESOURCE_INVALID,
  },
  scopesSupported: { kind: 'array', elements: { kind: 'string' } },
  resourceName: { kind: 'string' },
  resourceDocumentation: { kind: 'string', code: PROTECTED_RESOURCE_INVALID },
}

const SERVER_INFO_OPTIONS: OptionsShape<MCPServerInfo> = {
  name: { required: true, kind: 'string', code: OPTION_INVALID },
  version: { required: true, kind: 'string', code: OPTION_INVALID },
  title: { kind: 'string' },
}

const SKILLS_OPTIONS: OptionsShape<SkillsOptions> = {
  directory: { required: true, kind: 'string', code: SKILL_INVALID },
  maxFileBytes: { kind: 'number', code: SKILL_INVALID },
  maxFilesPerSkill: { kind: 'number', code: SKILL_INVALID },
  maxDepth: { kind: 'number', code: SKILL_INVALID },
}

const STRINGS = { kind: 'array', elements: { kind: 'string' } } as const

/** The options of `createMCPEndpoint`; values are checked further where they are used, at startup. */
export const MCP_ENDPOINT_OPTIONS: OptionsShape<MCPEndpointOptions> = {
  path: { kind: 'string', code: OPTION_INVALID },
  security: { kind: 'object' },
  auth: { kind: ['object', 'function', 'array'], code: OPTION_INVALID },
  protectedResource: { kind: 'object', shape: PROTECTED_RESOURCE_OPTIONS, code: PROTECTED_RESOURCE_INVALID },
  onError: { kind: 'function' },
  maxBodyBytes: { kind: 'number', code: OPTION_INVALID },
  allowedOrigins: STRINGS,
  allowedHosts: STRINGS,
  scheme: { kind: 'string', code: 'mcp.scheme_invalid' },
  serverInfo: { kind: 'object', shape: SERVER_INFO_OPTIONS, code: OPTION_INVALID },
  instructions: { kind: 'string' },
  openapi: { kind: 'function' },
  routes: { kind: ['iterable', 'function'] },
  skills: { kind: 'object', shape: SKILLS_OPTIONS },
  visible: { kind: 'function' },
  listing: {
    kind: 'string',
    code: OPTION_INVALID,
    check: (value) => (value === 'all' || value === 'readable' ? undefined : 'must be "all" or "readable"'),
  },
  guards: { kind: 'array', code: OPTION_INVALID },
  pageSize: { kind: 'number', code: OPTION_INVALID },
  maxResourceBytes: { kind: 'number', code: OPTION_INVALID },
  readTimeoutMs: { kind: 'number', code: OPTION_INVALID },
}

/** The options of the wrapper form `mcpResource(name, options)`. */
export const MCP_RESOURCE_MARK_OPTIONS: OptionsShape<MCPResourceMarkOptions> = {
  mimeType: { kind: 'string' },
  template: { kind: 'string' },
  description: { kind: 'string' },
  title: { kind: 'string' },
  ttlMs: { kind: 'number', check: (value) => nonNegativeInteger(value) },
}

function nonNegativeInteger(value: unknown): string | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer'
}
