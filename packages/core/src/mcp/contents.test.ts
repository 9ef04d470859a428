import { describe, expect, it } from 'vitest'
import { errorContent, toResourceContents } from './contents.js'

const bytes = (text: string) => new TextEncoder().encode(text)
const options = { maxBlobBytes: 1024 }

describe('toResourceContents', () => {
  it('keeps JSON serialized in text with the essence of the content type', () => {
    expect(
      toResourceContents(
        'fw://config',
        { contentType: 'application/json; charset=utf-8', body: bytes('{"debug":true}') },
        options,
      ),
    ).toEqual({ uri: 'fw://config', mimeType: 'application/json', text: '{"debug":true}' })
  })

  it.each([
    'text/plain',
    'text/markdown',
    'text/csv',
    'application/problem+json',
    'image/svg+xml',
    'application/xml',
    'application/yaml',
    'application/x-yaml',
    'application/javascript',
    'TEXT/HTML; charset=UTF-8',
  ])('returns %s as text when the bytes are UTF-8', (contentType) => {
    const contents = toResourceContents('fw://x', { contentType, body: bytes('héllo') }, options)
    expect(contents).toEqual({
      uri: 'fw://x',
      mimeType: contentType.split(';')[0]?.toLowerCase(),
      text: 'héllo',
    })
  })

  it('returns exact bytes as a base64 blob for binary types', () => {
    const body = Uint8Array.from([0x00, 0x01, 0x72, 0xff, 0xfe])
    const contents = toResourceContents('fw://report', { contentType: 'application/pdf', body }, options)
    expect(contents).toEqual({ uri: 'fw://report', mimeType: 'application/pdf', blob: 'AAFy//4=' })
    expect('text' in contents).toBe(false)
  })

  it('falls back to a blob when a text type carries invalid UTF-8', () => {
    const body = Uint8Array.from([0x68, 0xc3, 0x28])
    expect(toResourceContents('fw://x', { contentType: 'text/plain', body }, options)).toEqual({
      uri: 'fw://x',
      mimeType: 'text/plain',
      blob: Buffer.from(body).toString('base64'),
    })
  })

  it('uses the declared mime type when the handler sets none, then application/octet-stream', () => {
    const body = bytes('# Title')
    expect(toResourceContents('fw://x', { body }, { ...options, declaredMimeType: 'text/markdown' })).toEqual(
      {
        uri: 'fw://x',
        mimeType: 'text/markdown',
        text: '# Title',
      },
    )
    expect(toResourceContents('fw://x', { body }, options)).toEqual({
      uri: 'fw://x',
      mimeType: 'application/octet-stream',
      blob: Buffer.from(body).toString('base64'),
    })
    expect(
      toResourceContents(
        'fw://x',
        { contentType: '  ', body },
        { ...options, declaredMimeType: 'text/plain' },
      ),
    ).toMatchObject({
      mimeType: 'text/plain',
    })
  })

  it('slices a view of a larger buffer correctly', () => {
    const backing = Uint8Array.from([9, 9, 1, 2, 3, 9])
    const view = backing.subarray(2, 5)
    expect(toResourceContents('fw://x', { contentType: 'image/png', body: view }, options)).toMatchObject({
      blob: Buffer.from([1, 2, 3]).toString('base64'),
    })
  })

  it('refuses a blob over the cap with a typed error, but not text', () => {
    const big = new Uint8Array(1025)
    expect(() => toResourceContents('fw://x', { contentType: 'image/png', body: big }, options)).toThrow(
      expect.objectContaining({ code: 'mcp.blob_too_large' }),
    )
    expect(
      toResourceContents('fw://x', { contentType: 'text/plain', body: bytes('a'.repeat(2048)) }, options),
    ).toMatchObject({
      mimeType: 'text/plain',
    })
  })
})

describe('errorContent', () => {
  it('parses JSON bodies, keeps text, and gives null for empty or binary bodies', () => {
    expect(
      errorContent({ contentType: 'application/json', body: bytes('{"error":"upstream timeout"}') }),
    ).toEqual({
      error: 'upstream timeout',
    })
    expect(errorContent({ contentType: 'application/problem+json', body: bytes('{"status":403}') })).toEqual({
      status: 403,
    })
    expect(errorContent({ contentType: 'application/json', body: bytes('{broken') })).toBe('{broken')
    expect(errorContent({ contentType: 'text/plain', body: bytes('nope') })).toBe('nope')
    expect(errorContent({ body: new Uint8Array() })).toBeNull()
    expect(errorContent({ contentType: 'image/png', body: Uint8Array.from([0xff, 0xfe]) })).toBeNull()
  })
})

describe('a body an adapter hands over as text', () => {
  const options = { maxBlobBytes: 8 }

  it('is the text of a text type as given (a byte order mark removed)', () => {
    expect(
      toResourceContents('fw://t', { contentType: 'application/json', body: '\uFEFF{"é":1}' }, options),
    ).toEqual({
      uri: 'fw://t',
      mimeType: 'application/json',
      text: '{"é":1}',
    })
  })

  it('is encoded as UTF-8 for a binary type, and refused over maxBlobBytes by its byte length', () => {
    expect(
      toResourceContents('fw://b', { contentType: 'application/octet-stream', body: 'é' }, options),
    ).toEqual({
      uri: 'fw://b',
      mimeType: 'application/octet-stream',
      blob: Buffer.from('é').toString('base64'),
    })
    // five characters, ten bytes
    expect(() =>
      toResourceContents('fw://b', { contentType: 'application/octet-stream', body: 'ééééé' }, options),
    ).toThrow(/10 bytes exceeds maxBlobBytes/)
  })

  it('is the error content: parsed JSON, the text, or null when empty', () => {
    expect(errorContent({ contentType: 'application/problem+json', body: '{"status":404}' })).toEqual({
      status: 404,
    })
    expect(errorContent({ contentType: 'text/plain', body: 'gone' })).toBe('gone')
    expect(errorContent({ contentType: 'text/plain', body: '' })).toBeNull()
  })
})
