// Tools that produce files: link to a readable resource when the bytes are addressable, embed a blob
// only when they must travel with the result.
import { MCPBlobResource, type MCPResourceLink, type MCPResourceRegistry } from '@portcullis/core/mcp'
import type { ResourceRoutePath } from '@portcullis/express/mcp'

// #region tool-results-that-produce-files
export function invoiceLink(
  registry: MCPResourceRegistry<ResourceRoutePath>,
  tenantId: string,
  size: number,
): MCPResourceLink {
  // `attach()` resolves to the registry; `link` only accepts registered names, and template variables are
  // percent-encoded, so the URI always reads back through resources/read.
  return registry.link('tenant-report', { variables: { tenantId }, size })
}

export function generatedChart(png: Uint8Array) {
  // Refused (InvalidInputError `mcp.blob_too_large`) above 25 MiB unless maxBlobBytes says otherwise.
  const blob = new MCPBlobResource({ uri: 'chart://generated/latest', data: png, mimeType: 'image/png' })
  return { content: [blob.toContentBlock()], isError: false }
}
// #endregion tool-results-that-produce-files
