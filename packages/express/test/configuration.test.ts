// Every public factory of the Express adapter that takes an options object refuses, at startup and with a
// `ConfigurationError` naming the option: options that are not a plain object, unknown keys (a typo never
// falls back to a default), missing required options and wrongly typed ones, nested objects included.
import express from 'express'
import { describe, expect, it } from 'vitest'
import {
  common,
  describeFactoryOptions,
  type Factory,
  with_,
  without,
} from '../../core/test/support/factory-options.js'
import { mountHealthRoute } from '../src/health/health-route.js'
import { createMCPEndpoint } from '../src/mcp/endpoint.js'
import { mcpResource } from '../src/mcp/marking.js'
import { buildOpenApiDocument } from '../src/openapi/document.js'
import { createSecurity } from '../src/security/create-security.js'
import { alice, staticBearer } from './support/mechanisms.js'

const INFO = { title: 'API', version: '1.0.0' }

const verifier = { consume: async () => ({ kind: 'consumed' }) }

const factories: readonly Factory[] = [
  {
    name: 'createSecurity',
    valid: () => ({ mechanisms: [staticBearer({ t: { principal: alice } })] }),
    create: (options) => createSecurity(options as never),
    rows: [
      [
        'openapi settings without mechanisms',
        () => ({ openapi: { info: INFO } }),
        'configuration.missing_option',
        'createSecurity.mechanisms',
      ],
      [
        'mechanisms that are not a list',
        with_({ mechanisms: 'bearer' }),
        'configuration.invalid_option',
        'createSecurity.mechanisms',
      ],
      [
        'a mechanism that is not an object',
        with_({ mechanisms: [null] }),
        'configuration.invalid_option',
        'createSecurity.mechanisms[0]',
      ],
      [
        'a typo of defaultPolicy',
        with_({ defaultPolicies: {} }),
        'configuration.unknown_option',
        'createSecurity.defaultPolicies',
      ],
      [
        'a resolver that is not a function',
        with_({ authorizationResolver: {} }),
        'configuration.invalid_option',
        'createSecurity.authorizationResolver',
      ],
      [
        'a string policy',
        with_({ defaultPolicy: 'required' }),
        'security.invalid_default_policy',
        'createSecurity.defaultPolicy',
      ],
      [
        'a header override that is a number',
        with_({ headers: { 'X-Frame-Options': 1 } }),
        'configuration.invalid_option',
        'createSecurity.headers',
      ],
      [
        'headers set to true',
        with_({ headers: true }),
        'configuration.invalid_option',
        'createSecurity.headers',
      ],
      [
        'a string noStoreAuthenticated',
        with_({ noStoreAuthenticated: 'no' }),
        'configuration.invalid_option',
        'createSecurity.noStoreAuthenticated',
      ],
      [
        'an onRejection that is not a function',
        with_({ onRejection: 'log' }),
        'configuration.invalid_option',
        'createSecurity.onRejection',
      ],
      [
        'a typo inside openapi',
        with_({ openapi: { info: INFO, pth: '/spec.json' } }),
        'configuration.unknown_option',
        'createSecurity.openapi.pth',
      ],
      [
        'openapi without info',
        with_({ openapi: { path: '/spec.json' } }),
        'configuration.missing_option',
        'createSecurity.openapi.info',
      ],
      [
        'a typo inside openapi.info',
        with_({ openapi: { info: { ...INFO, descripton: 'x' } } }),
        'configuration.unknown_option',
        'createSecurity.openapi.info.descripton',
      ],
      [
        'a typo inside an openapi server',
        with_({ openapi: { info: INFO, servers: [{ url: 'https://api.example', desc: 'x' }] } }),
        'configuration.unknown_option',
        'createSecurity.openapi.servers[0].desc',
      ],
      [
        'a numeric openapi path',
        with_({ openapi: { info: INFO, path: 1 } }),
        'security.invalid_openapi_path',
        'createSecurity.openapi.path',
      ],
      [
        'stepUp without a verifier',
        with_({ stepUp: { header: 'step-up' } }),
        'configuration.missing_option',
        'createSecurity.stepUp.verifier',
      ],
      [
        'a step-up verifier without consume',
        with_({ stepUp: { verifier: {} } }),
        'configuration.invalid_option',
        'createSecurity.stepUp.verifier',
      ],
      [
        'a typo inside stepUp',
        with_({ stepUp: { verifier, headers: 'x' } }),
        'configuration.unknown_option',
        'createSecurity.stepUp.headers',
      ],
      ...common('createSecurity'),
    ],
  },
  {
    name: 'security.router',
    valid: () => ({ prefix: '/api' }),
    create: (options) => createSecurity({ mechanisms: [] }).router(options as never),
    rows: [
      [
        'a typo of prefix',
        () => ({ prefx: '/api' }),
        'configuration.unknown_option',
        'security.router.prefx',
      ],
      ['a numeric prefix', with_({ prefix: 1 }), 'route.invalid_prefix', 'security.router.prefix'],
      ...common('security.router'),
    ],
  },
  {
    name: 'createMCPEndpoint',
    valid: () => ({ path: '/mcp' }),
    create: (options) => createMCPEndpoint(options as never),
    rows: [
      [
        'a typo of maxBodyBytes',
        with_({ maxBodyByte: 10 }),
        'configuration.unknown_option',
        'createMCPEndpoint.maxBodyByte',
      ],
      ['a numeric path', with_({ path: 1 }), 'mcp.option_invalid', 'createMCPEndpoint.path'],
      [
        'a typo inside protectedResource',
        with_({
          protectedResource: {
            resource: 'https://api.example/mcp',
            authorizationServers: ['https://id.example'],
            scopes: ['read'],
          },
        }),
        'configuration.unknown_option',
        'createMCPEndpoint.protectedResource.scopes',
      ],
      [
        'protectedResource without resource',
        with_({ protectedResource: { authorizationServers: ['https://id.example'] } }),
        'mcp.protected_resource_invalid',
        'createMCPEndpoint.protectedResource.resource',
      ],
      [
        'skills without a directory',
        with_({ skills: { maxDepth: 2 } }),
        'mcp.skill_invalid',
        'createMCPEndpoint.skills.directory',
      ],
      [
        'a typo inside skills',
        with_({ skills: { directory: '/skills', maxDepths: 2 } }),
        'configuration.unknown_option',
        'createMCPEndpoint.skills.maxDepths',
      ],
      [
        'serverInfo without a version',
        with_({ serverInfo: { name: 'app' } }),
        'mcp.option_invalid',
        'createMCPEndpoint.serverInfo.version',
      ],
      [
        'allowedOrigins as one string',
        with_({ allowedOrigins: 'https://app.example' }),
        'configuration.invalid_option',
        'createMCPEndpoint.allowedOrigins',
      ],
      [
        'a numeric allowed host',
        with_({ allowedHosts: [1] }),
        'configuration.invalid_option',
        'createMCPEndpoint.allowedHosts[0]',
      ],
      [
        'routes that are a number',
        with_({ routes: 5 }),
        'configuration.invalid_option',
        'createMCPEndpoint.routes',
      ],
      [
        'a visible filter that is not a function',
        with_({ visible: true }),
        'configuration.invalid_option',
        'createMCPEndpoint.visible',
      ],
      ['a string auth', with_({ auth: 'bearer' }), 'mcp.option_invalid', 'createMCPEndpoint.auth'],
      ...common('createMCPEndpoint'),
    ],
  },
  {
    name: 'mountHealthRoute',
    valid: () => ({ path: '/healthz', checks: { db: () => true }, timeoutMs: 100 }),
    create: (options) => mountHealthRoute(express.Router(), options as never),
    rows: [
      [
        'a typo of timeoutMs',
        with_({ timeout: 100 }),
        'configuration.unknown_option',
        'mountHealthRoute.timeout',
      ],
      [
        'a check that is not a function',
        with_({ checks: { db: true } }),
        'configuration.invalid_option',
        'mountHealthRoute.checks',
      ],
      [
        'a zero timeout',
        with_({ timeoutMs: 0 }),
        'configuration.invalid_option',
        'mountHealthRoute.timeoutMs',
      ],
      ['a numeric path', with_({ path: 1 }), 'configuration.invalid_option', 'mountHealthRoute.path'],
      ...common('mountHealthRoute'),
    ],
  },
  {
    name: 'mcpResource',
    valid: () => ({ mimeType: 'application/json' }),
    create: (options) => mcpResource('config', options as never),
    rows: [
      [
        'a typo of mimeType',
        () => ({ mimetype: 'text/plain' }),
        'configuration.unknown_option',
        'mcpResource.mimetype',
      ],
      ['a numeric template', with_({ template: 1 }), 'configuration.invalid_option', 'mcpResource.template'],
      ...common('mcpResource'),
    ],
  },
  {
    name: 'buildOpenApiDocument',
    valid: () => ({ info: INFO, mechanisms: [], routes: [] }),
    create: (options) => buildOpenApiDocument(options as never),
    rows: [
      ['no routes', without('routes'), 'configuration.missing_option', 'buildOpenApiDocument.routes'],
      [
        'a typo inside info',
        with_({ info: { ...INFO, titel: 'x' } }),
        'configuration.unknown_option',
        'buildOpenApiDocument.info.titel',
      ],
      ...common('buildOpenApiDocument'),
    ],
  },
]

describeFactoryOptions(factories)

describe('unknown option messages', () => {
  it('name the key and suggest the closest known one', () => {
    expect(() => createMCPEndpoint({ maxBodyByte: 10 } as never)).toThrow(
      'createMCPEndpoint: unknown option maxBodyByte (did you mean maxBodyBytes?)',
    )
    expect(() => createMCPEndpoint({ someUnknownOption: 1 } as never)).toThrow(
      'createMCPEndpoint: unknown option someUnknownOption',
    )
  })
})
