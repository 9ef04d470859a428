import { portcullisTestConfig } from '../../vitest.shared.ts'

export default portcullisTestConfig()
