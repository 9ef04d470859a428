import { portcullisTestConfig, postgresGlobalSetup } from '../../vitest.shared.ts'

// Packing, an npm install and several node processes: one file at a time, with room for a cold build.
export default portcullisTestConfig({
  globalSetup: [postgresGlobalSetup],
  maxWorkers: 1,
  testTimeout: 120_000,
  hookTimeout: 300_000,
})
