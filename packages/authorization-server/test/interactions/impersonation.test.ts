import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ImpersonationRefusedConsent } from '../../src/index.js'
import {
  authorizationUrl,
  connect,
  type FullStack,
  startFullStack,
} from '../support/server-with-interactions.js'
import { Browser } from './support/browser.js'
import { callbackOf, post } from './support/flow.js'

const IMPERSONATOR = { accountId: 'admin-1', impersonationId: 'imp-0123456789abcdefghijk' }
const HOUR_AGO = () => new Date(Date.now() - 3600_000)

/**
 * An impersonation (the application's session carries `impersonator`) never connects an app: the grant
 * and its tokens would outlast it. The consent page says why, offers only Deny, and a posted Allow is
 * refused; an app the person connected themselves gets no new tokens from it either. Each refusal is
 * told to `onImpersonationRefused`, for the security log.
 */
describe('an impersonation at the consent page', () => {
  let stack: FullStack
  const refusals: ImpersonationRefusedConsent[] = []
  beforeAll(async () => {
    stack = await startFullStack('express', { onImpersonationRefused: (refusal) => refusals.push(refusal) })
  })
  afterAll(() => stack.close())

  /** A browser of `accountId` whose session is an impersonation. */
  const impersonating = (accountId: string) => {
    const browser = new Browser(stack.origin)
    const session = stack.signIn(browser, accountId, HOUR_AGO())
    session.impersonator = IMPERSONATOR
    return browser
  }

  it('is shown why, with Deny only; Deny answers access_denied and grants nothing', async () => {
    const accountId = await stack.newAccount('pia')
    const browser = impersonating(accountId)
    const before = refusals.length
    const page = await browser.follow(authorizationUrl(stack).url)
    expect(page.location).toBeUndefined()
    expect(page.response.status).toBe(403)
    const html = await page.response.text()
    expect(html).toContain('data-impersonation-refused')
    expect(html).toContain('authorization_server.interaction_impersonated')
    expect(html).not.toContain('value="approve"')
    expect(refusals.slice(before)).toEqual([
      { accountId, impersonator: IMPERSONATOR, clientId: stack.webClientId },
    ])
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string
    const { location } = await post(browser, page.url, { csrf, decision: 'deny' })
    expect(callbackOf(location).get('error')).toBe('access_denied')
    expect(await stack.server.connectedApps(accountId)).toEqual([])
  })

  it('a posted Allow, even with a genuine form token, is refused (403) and grants nothing', async () => {
    const accountId = await stack.newAccount('quinn')
    const browser = impersonating(accountId)
    const page = await browser.follow(authorizationUrl(stack).url)
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.response.text())?.[1] as string
    const before = refusals.length
    const approved = await post(browser, page.url, { csrf, decision: 'approve' })
    expect(approved.response.status).toBe(403)
    expect(approved.location).toBeUndefined()
    expect(await approved.response.text()).toContain('authorization_server.interaction_impersonated')
    expect(refusals.slice(before)).toHaveLength(1)
    expect(await stack.server.connectedApps(accountId)).toEqual([])
    expect(await stack.store.list(accountId)).toEqual([])
  })

  it('an app the person connected gets no new code from an impersonation of them', async () => {
    const own = await connect(stack, await stack.newAccount('rosa'), HOUR_AGO())
    const browser = impersonating(own.accountId)
    // Without an impersonation this browser would be sent straight back with a code (the grant exists).
    const page = await browser.follow(authorizationUrl(stack).url)
    expect(page.response.status).toBe(403)
    expect(page.location).toBeUndefined()
    expect(await stack.server.connectedApps(own.accountId)).toHaveLength(1)
  })

  it('a failing onImpersonationRefused still refuses, and goes to onError', async () => {
    const errors: unknown[] = []
    const throwing = await startFullStack('express', {
      onImpersonationRefused: () => {
        throw new Error('the log is down')
      },
      onError: (error) => errors.push(error),
    })
    try {
      const accountId = await throwing.newAccount('sam')
      const browser = new Browser(throwing.origin)
      throwing.signIn(browser, accountId, HOUR_AGO()).impersonator = IMPERSONATOR
      const page = await browser.follow(authorizationUrl(throwing).url)
      expect(page.response.status).toBe(403)
      expect(errors).toHaveLength(1)
    } finally {
      await throwing.close()
    }
  })
})
