import { portcullisTestConfig, postgresGlobalSetup } from '../../vitest.shared.ts'

// Packing and an npm install once per run (test/support/packed-setup.ts), then per bundler one
// `next build` in `beforeAll`: generous, but bounded.
export default portcullisTestConfig({
  globalSetup: [postgresGlobalSetup, './test/support/packed-setup.ts'],
  hookTimeout: 600_000,
  testTimeout: 30_000,
  maxWorkers: 1,
})
