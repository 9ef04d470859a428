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
  const conditions = ['@portcullis/source', ...defaultServerConditions]
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@portcullis/source'] } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node',
      pool: 'forks',
      maxWorkers: 2,
      testTimeout: 60_000,
      hookTimeout: 60_000,
      reporters: ['default', durationsReporter],
      ...overrides,
    },
  })
}
