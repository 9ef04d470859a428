import { PortcullisError } from '@portcullis/core/errors'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorizationUrl, type FullStack, startFullStack } from '../support/server-with-interactions.js'
import { Browser } from './support/browser.js'
import { consentPage, post } from './support/flow.js'

/**
 * Allow saves the grant only once the interaction's result is saved, just before the redirect: an
 * approval whose redirect cannot be sent leaves no "connected" app that never got its code.
 */
describe('the grant of an approval', () => {
  let stack: FullStack
  beforeAll(async () => {
    stack = await startFullStack('express')
  })
  afterAll(() => stack.close())

  it('is not saved when the interaction result cannot be saved, and the retry connects once', async () => {
    const accountId = await stack.newAccount('olga')
    const browser = new Browser(stack.origin)
    stack.signIn(browser, accountId)
    const page = await consentPage(browser, authorizationUrl(stack).url)
    const upsert = stack.store.upsert.bind(stack.store)
    let failed = 0
    stack.store.upsert = async (entry) => {
      if (entry.model === 'Interaction' && failed === 0) {
        failed += 1
        throw new PortcullisError('test.store_down', 'unavailable', 'the store is down')
      }
      return upsert(entry)
    }
    try {
      const refused = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
      expect(failed).toBe(1)
      expect(refused.response.status).toBe(503)
      expect(refused.response.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(refused.location).toBeUndefined()
      expect(await stack.server.connectedApps(accountId)).toEqual([])
    } finally {
      stack.store.upsert = upsert
    }
    const again = await consentPage(browser, page.url)
    const { location } = await post(browser, again.url, { csrf: again.csrf, decision: 'approve' })
    expect(new URL(location as string).searchParams.get('code')).toBeTruthy()
    expect(await stack.server.connectedApps(accountId)).toHaveLength(1)
  })
})
