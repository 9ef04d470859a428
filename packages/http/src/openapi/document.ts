import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { type OptionsShape, readOptions } from '@portcullis/core/errors'
import type { RegisteredRoute } from '../routing/route-registry.js'
import { problemSchemas, responsesFor } from './components.js'

export interface OpenApiInfo {
  readonly title: string
  readonly version: string
  readonly description?: string
}

export interface OpenApiServer {
  readonly url: string
  readonly description?: string
}

type JsonObject = Record<string, unknown>

export const OPENAPI_INFO_OPTIONS: OptionsShape<OpenApiInfo> = {
  title: { required: true, kind: 'string' },
  version: { required: true, kind: 'string' },
  description: { kind: 'string' },
}

export const OPENAPI_SERVER_OPTIONS: OptionsShape<OpenApiServer> = {
  url: { required: true, kind: 'string' },
  description: { kind: 'string' },
}

/** An OpenAPI 3.1 document (only the members Portcullis generates are typed). */
export interface OpenApiDocument {
  readonly openapi: '3.1.0'
  readonly info: OpenApiInfo
  readonly servers?: readonly OpenApiServer[]
  readonly paths: Readonly<Record<string, Readonly<Record<string, JsonObject>>>>
  readonly components: {
    readonly securitySchemes: Readonly<Record<string, JsonObject>>
    readonly schemas: Readonly<Record<string, JsonObject>>
  }
}

export interface OpenApiInput {
  readonly info: OpenApiInfo
  readonly servers?: readonly OpenApiServer[] | undefined
  readonly mechanisms: readonly AuthenticationMechanism[]
  readonly routes: readonly RegisteredRoute[]
}

const INPUT_OPTIONS: OptionsShape<OpenApiInput> = {
  info: { required: true, kind: 'object', shape: OPENAPI_INFO_OPTIONS },
  servers: { kind: 'array', elements: { kind: 'object', shape: OPENAPI_SERVER_OPTIONS } },
  mechanisms: { required: true, kind: 'array', elements: { kind: 'object' } },
  routes: { required: true, kind: 'array' },
}

/** Security requirements of a route: one object per alternative; `{}` when anonymous is allowed. */
function securityOf(route: RegisteredRoute): JsonObject[] {
  const requirements: JsonObject[] = route.policy.alternatives.map((group) =>
    Object.fromEntries(group.map((name) => [name, []])),
  )
  if (route.policy.optional) requirements.push({})
  return requirements
}

function operationIdBase(route: RegisteredRoute, documentedPath: string): string {
  const given = route.options.openapi?.operationId
  if (given !== undefined) return given
  const words = documentedPath
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
  return [route.method.toLowerCase(), ...words].join('_')
}

function parametersOf(route: RegisteredRoute, documentedPath: string): JsonObject[] {
  const given = route.options.openapi?.parameters ?? []
  const overridden = (name: string) => given.some((p) => p.in === 'path' && p.name === name)
  const inPath = [...documentedPath.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string)
  const generated = inPath
    .filter((name) => !overridden(name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))
  return [...generated, ...given.map((parameter) => ({ ...parameter }))]
}

/** Builds the OpenAPI 3.1 document of every registered, non-excluded route. */
export function buildOpenApiDocument(input: OpenApiInput): OpenApiDocument {
  readOptions(input, 'buildOpenApiDocument', INPUT_OPTIONS)
  const paths: Record<string, Record<string, JsonObject>> = {}
  const operationIds = new Set<string>()
  const uniqueId = (base: string) => {
    let id = base
    for (let n = 2; operationIds.has(id); n += 1) id = `${base}_${n}`
    operationIds.add(id)
    return id
  }
  for (const route of input.routes) {
    if (route.policy.excluded) continue
    const docs = route.options.openapi ?? {}
    for (const documentedPath of route.openapiPaths) {
      const parameters = parametersOf(route, documentedPath)
      const operation: JsonObject = {
        ...(docs.tags === undefined ? {} : { tags: [...docs.tags] }),
        ...(docs.summary === undefined ? {} : { summary: docs.summary }),
        ...(docs.description === undefined ? {} : { description: docs.description }),
        operationId: uniqueId(operationIdBase(route, documentedPath)),
        ...(parameters.length === 0 ? {} : { parameters }),
        ...(docs.requestBody === undefined ? {} : { requestBody: { ...docs.requestBody } }),
        responses: responsesFor(route),
        security: securityOf(route),
        ...(docs.deprecated === undefined ? {} : { deprecated: docs.deprecated }),
      }
      paths[documentedPath] ??= {}
      ;(paths[documentedPath] as Record<string, JsonObject>)[route.method.toLowerCase()] = operation
    }
  }
  const securitySchemes = Object.fromEntries(
    input.mechanisms.map((mechanism) => [mechanism.name, { ...mechanism.securityScheme }]),
  )
  return {
    openapi: '3.1.0',
    info: { ...input.info },
    ...(input.servers === undefined ? {} : { servers: input.servers.map((server) => ({ ...server })) }),
    paths,
    components: { securitySchemes, schemas: problemSchemas() },
  }
}
