import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { mountHealthRoute } from './health-route.js'

function appWith(options: Parameters<typeof mountHealthRoute>[1]) {
  const app = express()
  mountHealthRoute(app, options)
  return app
}

describe('mountHealthRoute', () => {
  it('answers 200 with no-store when every check passes', async () => {
    const response = await request(appWith({ checks: { database: async () => true } })).get('/healthz')
    expect(response.status).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.body).toEqual({ status: 'ok', checks: { database: 'ok' } })
  })

  it('answers 503 with Retry-After and no error detail when a check throws', async () => {
    const app = appWith({
      checks: {
        database: async () => {
          throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db')
        },
      },
    })
    const response = await request(app).get('/healthz')
    expect(response.status).toBe(503)
    expect(response.headers['retry-after']).toBe('5')
    expect(response.body).toEqual({ status: 'unavailable', checks: { database: 'failed' } })
    expect(response.text).not.toContain('hunter2')
  })

  it('reports a hung check as a timeout', async () => {
    const app = appWith({ timeoutMs: 20, checks: { jwks: () => new Promise<boolean>(() => {}) } })
    const response = await request(app).get('/healthz')
    expect(response.status).toBe(503)
    expect(response.body.checks).toEqual({ jwks: 'timeout' })
  })

  it('honours a custom path and reports a check that answers false as failed', async () => {
    const app = appWith({ path: '/status', checks: { a: () => true, b: () => false } })
    expect((await request(app).get('/healthz')).status).toBe(404)
    const response = await request(app).get('/status')
    expect(response.status).toBe(503)
    expect(response.body.checks).toEqual({ a: 'ok', b: 'failed' })
  })
})
