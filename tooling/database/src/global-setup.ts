import { dockerEngineAnswers } from './docker.js'
import { startEmbeddedPostgres } from './embedded.js'

/** The variable through which a run's shared embedded server reaches the test workers. */
export const EMBEDDED_SERVER_VARIABLE = 'PORTCULLIS_TEST_POSTGRES_URL'

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Vitest global setup: one real PostgreSQL server for the whole run when neither `DATABASE_URL` nor a
 * Docker engine is there, so every `createTestDatabase()` of the run gets its own database on it. The
 * server is stopped when the run ends, when it fails, and when it is interrupted.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL || process.env[EMBEDDED_SERVER_VARIABLE]) return undefined
  if (await dockerEngineAnswers()) return undefined
  const server = await startEmbeddedPostgres()
  process.env[EMBEDDED_SERVER_VARIABLE] = server.connectionString
  const onSignal = (signal: NodeJS.Signals) => {
    void server.stop().finally(() => {
      // When nothing else handles the signal, end the process the way the signal would have.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
    })
    for (const each of SIGNALS) process.off(each, onSignal)
  }
  for (const signal of SIGNALS) process.on(signal, onSignal)
  return async () => {
    for (const signal of SIGNALS) process.off(signal, onSignal)
    delete process.env[EMBEDDED_SERVER_VARIABLE]
    await server.stop()
  }
}
