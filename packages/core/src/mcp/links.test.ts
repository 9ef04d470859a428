import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { MCPBlobResource, MCPResourceLink } from './links.js'

const code = (expected: string) => expect.objectContaining({ code: expected })

describe('MCPResourceLink', () => {
  it('emits a resource_link block with only the fields that were set, meta as _meta', () => {
    const link = new MCPResourceLink({
      name: 'report.pdf',
      uri: 'fw://report',
      mimeType: 'application/pdf',
      size: 2048,
      annotations: { audience: ['user'], priority: 0.5 },
      meta: { 'example.com/tag': 'monthly' },
    })
    expect(JSON.parse(JSON.stringify(link))).toEqual({
      type: 'resource_link',
      name: 'report.pdf',
      uri: 'fw://report',
      mimeType: 'application/pdf',
      size: 2048,
      annotations: { audience: ['user'], priority: 0.5 },
      _meta: { 'example.com/tag': 'monthly' },
    })
    expect(new MCPResourceLink({ name: 'n', uri: 'fw://n' }).toContentBlock()).toEqual({
      type: 'resource_link',
      name: 'n',
      uri: 'fw://n',
    })
  })

  it.each([
    [{ name: '', uri: 'fw://x' }],
    [{ name: 'x', uri: 'relative/path' }],
    [{ name: 'x', uri: 'fw://x', size: -1 }],
    [{ name: 'x', uri: 'fw://x', size: 1.5 }],
    [{ name: 'x', uri: 'fw://x', annotations: { priority: 2 } }],
    [{ name: 'x', uri: 'fw://x', annotations: { audience: ['robot' as 'user'] } }],
    [{ name: 'x', uri: 'fw://x', annotations: { lastModified: 'yesterday' } }],
  ])('refuses invalid input %j', (init) => {
    expect(() => new MCPResourceLink(init)).toThrow(code('mcp.content_invalid'))
  })
})

describe('MCPBlobResource', () => {
  it('embeds base64 bytes with annotations on the block, not inside resource', () => {
    const blob = new MCPBlobResource({
      uri: 'fw://generated/1',
      data: Uint8Array.from([0, 1, 114]),
      mimeType: 'application/pdf',
      annotations: { priority: 1 },
    })
    expect(blob.toContentBlock()).toEqual({
      type: 'resource',
      resource: { uri: 'fw://generated/1', mimeType: 'application/pdf', blob: 'AAFy' },
      annotations: { priority: 1 },
    })
    expect(blob.size).toBe(3)
  })

  it('defaults the mime type to application/octet-stream', () => {
    const blob = new MCPBlobResource({ uri: 'fw://b', data: new Uint8Array(2) })
    expect(blob.toJSON().resource.mimeType).toBe('application/octet-stream')
  })

  it('refuses payloads over maxBlobBytes', () => {
    expect(() => new MCPBlobResource({ uri: 'fw://b', data: new Uint8Array(4), maxBlobBytes: 3 })).toThrow(
      code('mcp.blob_too_large'),
    )
    expect(() => new MCPBlobResource({ uri: 'fw://b', data: new Uint8Array(1), maxBlobBytes: 0 })).toThrow(
      code('mcp.content_invalid'),
    )
    expect(() => new MCPBlobResource({ uri: 'fw://b', data: 'text' as unknown as Uint8Array })).toThrow(
      code('mcp.content_invalid'),
    )
  })

  it('keeps the base64 payload out of inspect output', () => {
    const blob = new MCPBlobResource({
      uri: 'fw://b',
      data: new TextEncoder().encode('secret-looking-bytes'),
    })
    const shown = inspect(blob)
    expect(shown).toContain('size: 20')
    expect(shown).not.toContain(Buffer.from('secret-looking-bytes').toString('base64'))
  })
})
