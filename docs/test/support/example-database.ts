// Every test file runs with DATABASE_URL naming a fresh, empty database of its own (on the server
// DATABASE_URL named, or the one the global setup started), as the Postgres examples tell readers to
// provide; the database is dropped and DATABASE_URL restored when the file ends.
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll } from 'vitest'

const serverUrl = process.env.DATABASE_URL
const database = await createTestDatabase()
process.env.DATABASE_URL = database.connectionString

afterAll(async () => {
  await database.close()
  if (serverUrl === undefined) delete process.env.DATABASE_URL
  else process.env.DATABASE_URL = serverUrl
})
