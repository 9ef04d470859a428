import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, type PostgresClient } from '@portcullis/postgres'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createReferenceApp } from '../src/app.js'
import { readConfig } from '../src/config.js'

let database: TestDatabase
let postgres: PostgresClient
beforeAll(async () => {
  database = await createTestDatabase()
  postgres = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
})
afterAll(async () => {
  await postgres?.close()
  await database?.close()
})

describe('reference app health', () => {
  it('reports the database as healthy through a real query', async () => {
    const response = await request(createReferenceApp({ postgres })).get('/healthz')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ status: 'ok', checks: { database: 'ok' } })
  })

  it('answers 503 once the database is gone', async () => {
    const broken = createPostgresClient({ connectionString: 'postgres://postgres@127.0.0.1:1/none' })
    try {
      const response = await request(createReferenceApp({ postgres: broken })).get('/healthz')
      expect(response.status).toBe(503)
      expect(response.body.checks).toEqual({ database: 'failed' })
    } finally {
      await broken.close()
    }
  })
})

describe('readConfig', () => {
  it('defaults to loopback, port 3000 and embedded storage', () => {
    const config = readConfig({})
    expect(config.host).toBe('127.0.0.1')
    expect(config.port).toBe(3000)
    expect(config.databaseUrl).toBeUndefined()
    expect(config.dataDir).toMatch(/\.data\/postgres$/)
  })

  it('refuses a port that cannot be bound', () => {
    expect(() => readConfig({ PORT: '70000' })).toThrow(/PORT/)
    expect(() => readConfig({ PORT: 'abc' })).toThrow(/PORT/)
  })
})
