import { portcullisTestConfig, postgresGlobalSetup } from '../../vitest.shared.ts'

// Packing, an npm install and several node processes: one file at a time, with room for a cold build,
// which may first wait for another test task's build of the workspace (the build lock).
export default portcullisTestConfig({
  globalSetup: [postgresGlobalSetup],
  maxWorkers: 1,
  testTimeout: 120_000,
  hookTimeout: 900_000,
})
