import { portcullisTestConfig } from '../../vitest.shared.ts'

// Reading every published package's export surface builds one compiler program over all their sources.
export default portcullisTestConfig({ testTimeout: 180_000 })
