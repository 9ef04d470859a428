// The OpenAPI builder lives in the framework-neutral layer; this module keeps the adapter's import path.
export type { OpenApiDocument, OpenApiInfo, OpenApiServer } from '@portcullis/http/openapi'
export { buildOpenApiDocument } from '@portcullis/http/openapi'
