// An application composes adapters around core: here the Express adapter's health route checks a
// Postgres client from the postgres adapter. Neither adapter imports the other.
import { mountHealthRoute } from '@portcullis/express'
import { createPostgresClient } from '@portcullis/postgres'
import express from 'express'

const connectionString = process.env.DATABASE_URL
if (!connectionString) throw new Error('DATABASE_URL is required')

const postgres = createPostgresClient({ connectionString })
const app = express()
mountHealthRoute(app, { checks: { database: () => postgres.ping() } })
app.listen(3000, '127.0.0.1')
