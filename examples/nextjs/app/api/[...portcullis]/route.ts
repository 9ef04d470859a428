// Everything Portcullis serves under /api: the generated routes (/api/auth/...), the MCP endpoint
// (/api/mcp), the OpenAPI document and every route declared in lib/routes.ts (imported here, so they
// are all declared before the first request).
import '../../../lib/routes'
import { portcullis } from '../../../lib/portcullis'

export const GET = portcullis.fetch
export const POST = portcullis.fetch
export const DELETE = portcullis.fetch
