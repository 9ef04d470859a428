import { defaultServerConditions } from 'vite'
import { portcullisTestConfig, postgresGlobalSetup } from '../vitest.shared.ts'

// The documentation's own checks (test/) and the examples that are tests (examples/**/*.test.ts), which
// run as a reader would run them: the Postgres ones against a fresh database named by DATABASE_URL.
const config = portcullisTestConfig({
  include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
  // Run with `node --test`, not vitest: see test/node-test-example.test.ts.
  exclude: ['examples/conformance/node-test.test.ts', '**/node_modules/**'],
  globalSetup: [postgresGlobalSetup],
  setupFiles: ['test/support/example-database.ts'],
})

// `@opentelemetry/api` publishes an ESM build under the `module` condition whose imports have no file
// extensions, which Node cannot load; resolve packages the way Node does (without `module`).
const conditions = ['@portcullis/source', ...defaultServerConditions.filter((name) => name !== 'module')]
export default {
  ...config,
  resolve: { ...config.resolve, conditions },
  ssr: { resolve: { conditions, externalConditions: ['@portcullis/source'] } },
}
