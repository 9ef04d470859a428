// An instrumentation is an observer: one that throws never changes an answer, and a malformed one is a
// configuration error at startup.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import {
  ApiKeyPepperRing,
  ApiKeyService,
  apiKey,
  decodeApiKeyPepper,
  MemoryApiKeyStore,
} from '@portcullis/core/api-keys'
import type { Instrumentation } from '@portcullis/core/instrumentation'
import { required } from '@portcullis/core/policy'
import { createSecurity } from '@portcullis/express'
import express from 'express'
import { describe, expect, it } from 'vitest'

const keys = apiKey({
  service: new ApiKeyService({
    store: new MemoryApiKeyStore(),
    peppers: new ApiKeyPepperRing(decodeApiKeyPepper('v1', randomBytes(32).toString('base64'), 'base64')),
    prefix: 'acme',
  }),
})

const throwing: Instrumentation = {
  decision: () => {
    throw new Error('exporter down')
  },
  refusal: () => {
    throw new Error('exporter down')
  },
  rateLimitHit: () => {
    throw new Error('exporter down')
  },
}

describe('the instrumentation option', () => {
  it('answers the same when every instrumentation method throws', async () => {
    let decisions = 0
    const counting: Instrumentation = {
      ...throwing,
      decision: () => {
        decisions += 1
        throw new Error('exporter down')
      },
    }
    const security = createSecurity({ mechanisms: [keys], instrumentation: counting })
    const api = security.router({ prefix: '/api' })
    api.get('/me', { auth: required() }, (_req, res) => {
      res.json({ ok: true })
    })
    const app = express()
    app.use(security.middleware)
    app.use(api)
    const server = app.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/me`)
      expect(response.status).toBe(401)
      expect(((await response.json()) as { code: string }).code).toBe('authentication.required')
      expect(decisions).toBe(1)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('skips the decision while recording() answers false, reports it once it answers true, and treats a throwing recording() as true', async () => {
    let decisions = 0
    let refusals = 0
    let recording: () => boolean = () => false
    const switched: Instrumentation = {
      decision: () => {
        decisions += 1
      },
      refusal: () => {
        refusals += 1
      },
      rateLimitHit: () => {},
      recording: () => recording(),
    }
    const security = createSecurity({ mechanisms: [keys], instrumentation: switched })
    const api = security.router({ prefix: '/api' })
    api.get('/me', { auth: required() }, (_req, res) => {
      res.json({ ok: true })
    })
    const app = express()
    app.use(security.middleware)
    app.use(api)
    const server = app.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    const me = async () => {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/me`)
      expect(response.status).toBe(401)
    }
    try {
      await me()
      expect([decisions, refusals]).toEqual([0, 0])
      recording = () => true
      await me()
      expect([decisions, refusals]).toEqual([1, 1])
      recording = () => {
        throw new Error('exporter down')
      }
      await me()
      expect([decisions, refusals]).toEqual([2, 2])
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('refuses an instrumentation without the three methods at startup', () => {
    const partial = { decision: () => {} } as unknown as Instrumentation
    expect(() => createSecurity({ mechanisms: [keys], instrumentation: partial })).toThrow(
      /decision, refusal and rateLimitHit/,
    )
    const notAMethod = { ...throwing, recording: true } as unknown as Instrumentation
    expect(() => createSecurity({ mechanisms: [keys], instrumentation: notAMethod })).toThrow(
      /recording must be a method/,
    )
  })
})
