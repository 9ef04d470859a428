import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The password-reset pages over plain HTTP: the same answer for an address with an account and one
 * without, a cross-site form refused before anything is sent, and the code page's headers.
 */
let app: TestApp

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  await app?.close()
})

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
      origin: app.url,
      ...headers,
    },
    body: new URLSearchParams(fields),
  })

const mailCount = async () => {
  const page = await (await fetch(`${app.url}/dev/mailbox`)).text()
  return Number(/data-testid="mail-count">(\d+) message/.exec(page)?.[1] ?? '0')
}

describe('the password-reset pages', () => {
  it('answer an address with an account and one without alike: 303 to the code page, no-store, no referrer', async () => {
    const known = await post('/forgot-password', { email: 'carol@demo.portcullis.invalid' })
    const unknown = await post('/forgot-password', { email: 'nobody@demo.portcullis.invalid' })
    for (const answer of [known, unknown]) {
      expect(answer.status).toBe(303)
      expect(answer.headers.get('location')).toMatch(/^\/reset-password\?flow=[^&]+&sent=1$/)
      expect(answer.headers.get('cache-control')).toBe('no-store')
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer')
    }
    const page = await fetch(`${app.url}${known.headers.get('location')}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await page.text()).toContain('If an account has that address')
    // Both addresses get mail: the reset code, and "someone tried with your address".
    const deadline = Date.now() + 20_000
    while ((await mailCount()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    const mailbox = await (await fetch(`${app.url}/dev/mailbox`)).text()
    expect(mailbox).toContain('carol@demo.portcullis.invalid')
    expect(mailbox).toContain('nobody@demo.portcullis.invalid')
  })

  it('refuse a form sent from another site, sending nothing', async () => {
    const before = await mailCount()
    const answer = await post(
      '/forgot-password',
      { email: 'alice@demo.portcullis.invalid' },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    )
    expect(answer.status).toBe(403)
    const reset = await post(
      '/reset-password',
      { flow: 'x', code: '123456', password: 'a long enough passphrase' },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    )
    expect(reset.status).toBe(403)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await mailCount()).toBe(before)
  })

  it('a made-up flow and code are one refusal, said beside the code field', async () => {
    const answer = await post('/reset-password', {
      flow: 'not-a-flow',
      code: '123456',
      password: 'a long enough passphrase',
    })
    expect(answer.status).toBe(400)
    expect(await answer.text()).toContain('That code is wrong, expired or already used.')
  })
})
