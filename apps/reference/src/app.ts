import { mountHealthRoute } from '@portcullis/express'
import type { PostgresClient } from '@portcullis/postgres'
import express, { type Express } from 'express'

export interface ReferenceAppOptions {
  readonly postgres: PostgresClient
}

/** The reference application: composes the adapters around one Postgres client. */
export function createReferenceApp(options: ReferenceAppOptions): Express {
  const app = express()
  app.disable('x-powered-by')
  mountHealthRoute(app, { checks: { database: () => options.postgres.ping() } })
  app.get('/', (_request, response) => {
    response.type('text/plain').send('Portcullis reference app. Health: /healthz\n')
  })
  return app
}
