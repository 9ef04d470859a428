import { anonymous } from '@portcullis/core/policy'
import { describe, expect, it } from 'vitest'
import { createFetchSecurity } from '../src/index.js'
import { apiKey } from './support/api-key.js'

// Hono hands a path parameter that does not percent-decode over with its escapes kept; the fetch form
// refuses it before the route's handler runs, and a parameter that does decode (a `%25` among them)
// reaches the handler decoded.
function form(reached: string[]) {
  const portcullis = createFetchSecurity({
    mechanisms: [apiKey],
    openapi: { info: { title: 'Malformed URLs', version: '1.0.0' } },
  })
  portcullis.route('POST', '/items/:id/remove', { auth: anonymous() }, (_request, { params }) => {
    reached.push(params.id as string)
    return Response.json({ id: params.id })
  })
  return portcullis
}

const post = (portcullis: ReturnType<typeof form>, path: string) =>
  portcullis.fetch(new Request(`http://app.test${path}`, { method: 'POST' }))

describe('a fetch-form route parameter that does not percent-decode', () => {
  for (const segment of ['%E0%A4%A', '%', '%C3%28', 'ok%ZZ']) {
    it(`${segment} is 400 request.malformed_url, the path not echoed, the handler not run`, async () => {
      const reached: string[] = []
      const answer = await post(form(reached), `/items/${segment}/remove`)
      expect(answer.status).toBe(400)
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(answer.headers.get('cache-control')).toContain('no-store')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      const text = await answer.text()
      expect(JSON.parse(text)).toEqual({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        code: 'request.malformed_url',
        detail: 'The request URL is malformed',
      })
      expect(text).not.toContain(segment)
      expect(reached).toEqual([])
    })
  }

  for (const [segment, decoded] of [
    ['50%25', '50%'],
    ['caf%C3%A9', 'café'],
    ['plain', 'plain'],
  ] as const) {
    it(`${segment} decodes and reaches the handler as ${decoded}`, async () => {
      const reached: string[] = []
      const answer = await post(form(reached), `/items/${segment}/remove`)
      expect(answer.status).toBe(200)
      expect(reached).toEqual([decoded])
    })
  }
})
