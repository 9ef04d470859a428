import { portcullisTestConfig } from '../../vitest.shared.ts'

// The setup file lets FC_SEED and FC_PATH replay a failing fast-check run (see CONTRIBUTING.md).
export default portcullisTestConfig({ setupFiles: ['test/fuzz/replay.setup.ts'] })
