import { portcullisTestConfig, postgresGlobalSetup } from '../../vitest.shared.ts'

export default portcullisTestConfig({ globalSetup: [postgresGlobalSetup] })
