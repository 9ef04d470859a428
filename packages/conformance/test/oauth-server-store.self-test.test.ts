import { describe, expect, it } from 'vitest'
import {
  assertOAuthServerStoreConformance,
  oauthServerStoreSuite,
} from '../src/authorization-server/index.js'
import { runSuite } from '../src/index.js'
import { ConformanceViolation } from '../src/suite/suite.js'
import { brokenOAuthServerStores, memoryOAuthServerFixture } from './support/broken-oauth-server-stores.js'

describe('OAuthServerStore conformance suite against deliberately broken stores', () => {
  it('passes the reference memory store as a whole and disposes every fixture', async () => {
    let disposed = 0
    const suite = oauthServerStoreSuite((options) => ({
      ...memoryOAuthServerFixture(options),
      dispose: () => {
        disposed += 1
      },
    }))
    const failed = (await runSuite(suite)).filter((result) => !result.passed)
    expect(failed).toEqual([])
    expect(disposed).toBe(suite.cases.length)
    await expect(
      assertOAuthServerStoreConformance((options) => memoryOAuthServerFixture(options)),
    ).resolves.toBeUndefined()
  })

  it('passes the memory store without an outbox (it refuses grants that carry notifications)', async () => {
    await expect(
      assertOAuthServerStoreConformance((options) =>
        memoryOAuthServerFixture(options, options.clock, { withOutbox: false }),
      ),
    ).resolves.toBeUndefined()
  })

  it('names every case oauth_server.<rule>, once', () => {
    const ids = oauthServerStoreSuite(memoryOAuthServerFixture).cases.map((each) => each.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^oauth_server\.[a-z-]+$/)
  })

  for (const broken of brokenOAuthServerStores) {
    it(`fails "${broken.name}" on exactly ${broken.caught.join(', ')}`, async () => {
      const failed = (await runSuite(oauthServerStoreSuite(broken.factory))).filter(
        (result) => !result.passed,
      )
      expect(failed.map((result) => result.id)).toEqual(broken.caught)
      for (const result of failed) expect(result.error).toBeInstanceOf(ConformanceViolation)
      await expect(assertOAuthServerStoreConformance(broken.factory)).rejects.toThrow(
        broken.caught[0] ?? 'never',
      )
    })
  }
})
