import { oauthServerStoreSuite } from '../src/authorization-server/index.js'
import { describeConformance } from '../src/bindings/vitest.js'
import { memoryOAuthServerFixture } from './support/broken-oauth-server-stores.js'

// The reference memory store, over a memory account store and memory revocation notices.
describeConformance(oauthServerStoreSuite((options) => memoryOAuthServerFixture(options)))
