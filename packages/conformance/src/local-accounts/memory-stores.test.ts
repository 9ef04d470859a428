import {
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
} from '@portcullis/core/local-accounts'
import { describeConformance } from '../bindings/vitest.js'
import { rateLimitStoreSuite, refreshTokenStoreSuite, sessionStoreSuite } from './index.js'

// The reference memory stores pass every suite; a memory store is its own peer (one process).
describeConformance(
  sessionStoreSuite(() => ({ store: new MemorySessionStore() }), { activeOrganization: true }),
)
describeConformance(refreshTokenStoreSuite(() => ({ store: new MemoryRefreshTokenStore() })))
describeConformance(rateLimitStoreSuite(() => ({ store: new MemoryRateLimitStore() })))
