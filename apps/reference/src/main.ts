import { readConfig } from './config.js'
import { startReferenceApp } from './server.js'

/** `pnpm start`: one line per fact on stdout, one line on stderr when the app cannot start. */
async function main(): Promise<void> {
  const config = readConfig()
  const running = await startReferenceApp(config)
  const migrations =
    running.appliedMigrations.length === 0
      ? `schema current at version ${running.schemaVersion}`
      : `applied migrations ${running.appliedMigrations.join(', ')}; schema at version ${running.schemaVersion}`
  console.log(`portcullis reference app listening on ${running.url}`)
  console.log(`data: ${running.storage} (${migrations})`)
  console.log(`open ${running.url}/ in a browser; health: ${running.url}/healthz; stop with Ctrl+C`)
  const shutdown = () => {
    void running.close().then(() => process.exit(0))
  }
  process.once('SIGINT', shutdown)
  process.once('SIGTERM', shutdown)
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  console.error(`portcullis reference app could not start: ${message}`)
  process.exit(1)
})
