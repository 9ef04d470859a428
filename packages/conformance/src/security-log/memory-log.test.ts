import { MemorySecurityLog } from '@portcullis/core/security-log'
import { describeConformance } from '../bindings/vitest.js'
import { securityLogSuite } from './index.js'

// In one process the memory log is its own peer.
describeConformance(
  securityLogSuite(() => {
    const log = new MemorySecurityLog()
    return { log, peer: log }
  }),
)
