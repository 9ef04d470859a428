import { defaultServerConditions, defineConfig, type UserConfig } from 'vite'

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
      ...overrides,
    },
  })
}
