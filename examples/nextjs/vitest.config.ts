import { portcullisTestConfig } from '../../vitest.shared.ts'

// One `next build` per test file, in `beforeAll`: generous, but bounded.
export default portcullisTestConfig({ hookTimeout: 400_000, testTimeout: 30_000, maxWorkers: 1 })
