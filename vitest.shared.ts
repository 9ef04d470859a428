import { fileURLToPath } from 'node:url'
import { defaultServerConditions, defineConfig, type UserConfig } from 'vite'

/**
 * Vitest global setup of the packages whose tests need PostgreSQL: one real server for the run when
 * neither `DATABASE_URL` nor a Docker engine is there (see `@portcullis/database-tooling`).
 */
export const postgresGlobalSetup = fileURLToPath(
  new URL('./tooling/database/src/global-setup.ts', import.meta.url),
)

/**
 * Records every test file's duration for the summary at the end of `pnpm test` (the ten slowest files);
 * writes nothing outside that run.
 */
export const durationsReporter = fileURLToPath(
  new URL('./tooling/database/src/test-run/durations-reporter.ts', import.meta.url),
)

/** Shared test settings: workspace packages resolve to their TypeScript sources. */
export function portcullisTestConfig(overrides: UserConfig['test'] = {}): UserConfig {
  // Dependencies resolve the way Node resolves them (no `module` condition): `@opentelemetry/api` publishes
  // an ESM build under `module` whose imports have no file extensions, which Node cannot load.
  const conditions = ['@portcullis/source', ...defaultServerConditions.filter((name) => name !== 'module')]
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@portcullis/source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node',
      pool: 'forks',
      maxWorkers: 2,
      // A worker keeps its module graph from one test file to the next: each file used to import core's
      // sources again (express: 54 s of imports for 39 s of tests; 56 s → 14 s a run without it). Every
      // file builds its own stores, servers and apps; no test mocks a module or stubs a global.
      isolate: false,
      testTimeout: 60_000,
      hookTimeout: 60_000,
      reporters: ['default', durationsReporter],
      ...overrides,
    },
  })
}
