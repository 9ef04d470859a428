import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConsentView, escapeHtml } from '../../src/index.js'
import { CLIENT_NAME, RESOURCE, startApp, type TestApp } from './support/app.js'
import { Browser } from './support/browser.js'
import { callbackOf, post } from './support/flow.js'

describe('renderConsent', () => {
  let app: TestApp
  const views: ConsentView[] = []
  beforeAll(async () => {
    app = await startApp('express', {
      renderConsent: (view) => {
        views.push(view)
        return `<main id="custom"><form method="post" action="${escapeHtml(view.action)}"><input name="csrf" value="${escapeHtml(view.csrfToken)}"></form></main>`
      },
    })
  })
  afterAll(() => app.close())

  it('receives the view and its HTML is served with the interaction headers, and its form still works', async () => {
    const browser = new Browser(app.origin)
    app.signIn(browser, 'alice')
    const { response, url } = await browser.follow(app.authorize({ scope: 'notes:read notes:write' }).url)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    const html = await response.text()
    expect(html).toContain('<main id="custom">')
    expect(views).toHaveLength(1)
    const view = views[0] as ConsentView
    expect(view).toMatchObject({
      accountId: 'alice',
      client: { name: CLIENT_NAME, idHost: 'client.example', redirectHost: 'callback.example' },
      resources: [RESOURCE],
      grantedScopes: [],
    })
    expect(view.scopes).toEqual([
      { name: 'notes:read', description: 'Read your notes' },
      { name: 'notes:write', description: 'Change your notes' },
    ])
    const { location } = await post(browser, url, { csrf: view.csrfToken, decision: 'approve' })
    expect(callbackOf(location).get('code')).toBeTruthy()
  })
})
