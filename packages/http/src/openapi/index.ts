// The OpenAPI 3.1 document of a route table.
export type { OpenApiDocument, OpenApiInfo, OpenApiInput, OpenApiServer } from './document.js'
export { buildOpenApiDocument, OPENAPI_INFO_OPTIONS, OPENAPI_SERVER_OPTIONS } from './document.js'
