import { anonymous } from '@portcullis/core/policy'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity } from '../src/index.js'
import { alice, staticBearer } from './support/mechanisms.js'

// The router decodes path parameters before any route runs: one that does not percent-decode is its
// URIError (status 400), which reaches the application's error middleware, not the route's.
function app(seen: unknown[] = [], reached: string[] = []) {
  const security = createSecurity({
    mechanisms: [staticBearer({ t: { principal: alice } })],
    onError: (error) => seen.push(error),
  })
  const router = security.router()
  const open = { auth: anonymous() }
  router.post('/items/:id/remove', open, (req, res) => {
    reached.push(req.params.id as string)
    res.json({ id: req.params.id })
  })
  router.get('/decode/:id', open, (req) => {
    // the handler's own decoding failure: a defect of the handler, not a malformed request
    decodeURIComponent(`${req.params.id}%`)
  })
  const application = express()
  application.use(security.middleware)
  application.use(router)
  application.use(security.errorHandler)
  return application
}

describe('a path parameter that does not percent-decode', () => {
  for (const segment of ['%E0%A4%A', '%', '%C3%28', 'ok%ZZ']) {
    it(`${segment} is 400 request.malformed_url, the path not echoed, the route not run`, async () => {
      const seen: unknown[] = []
      const reached: string[] = []
      const answer = await request(app(seen, reached)).post(`/items/${segment}/remove`)
      expect(answer.status).toBe(400)
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(answer.headers['cache-control']).toContain('no-store')
      expect(answer.headers['x-content-type-options']).toBe('nosniff')
      expect(answer.body).toEqual({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        code: 'request.malformed_url',
        detail: 'The request URL is malformed',
      })
      expect(answer.text).not.toContain(segment)
      expect(reached).toEqual([])
      expect(seen).toHaveLength(1)
      expect(seen[0]).toBeInstanceOf(URIError)
    })
  }

  it('an escaped % decodes and reaches the route', async () => {
    const reached: string[] = []
    const answer = await request(app([], reached)).post('/items/50%25/remove')
    expect(answer.status).toBe(200)
    expect(reached).toEqual(['50%'])
  })

  it("a handler's own URIError stays a 500 internal.error", async () => {
    const answer = await request(app()).get('/decode/x')
    expect(answer.status).toBe(500)
    expect(answer.body.code).toBe('internal.error')
  })
})
