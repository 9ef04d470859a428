import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { describeConformance } from '../bindings/vitest.js'
import { revocationNoticesSuite } from './index.js'

// In one process the memory notices are their own peer: every instance of the process shares them.
describeConformance(
  revocationNoticesSuite(() => {
    const notices = new MemoryRevocationNotices()
    return { notices, peer: notices }
  }),
)
