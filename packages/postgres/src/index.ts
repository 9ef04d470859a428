export type { PostgresClient, PostgresClientOptions } from './client/postgres-client.js'
export { createPostgresClient } from './client/postgres-client.js'
