import { expect } from 'vitest'
import { REDIRECT_URI } from './app.js'
import type { Browser } from './browser.js'

/** Follows an authorization to the consent page and returns its HTML, URL and CSRF token. */
export async function consentPage(browser: Browser, target: string) {
  const { response, location, url } = await browser.follow(target)
  expect(location, `expected the consent page, was redirected to ${location}`).toBeUndefined()
  expect(response.status).toBe(200)
  const html = await response.text()
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1]
  expect(csrf).toBeDefined()
  return { html, url, csrf: csrf as string, response }
}

export function post(browser: Browser, url: string, fields: Record<string, string>) {
  return browser.follow(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
}

/** The authorization response's parameters at the client's redirect URI. */
export function callbackOf(location: string | undefined): URLSearchParams {
  expect(location).toBeDefined()
  const url = new URL(location as string)
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URI)
  return url.searchParams
}

/** The scope names of one list of the default consent page (`data-scopes`, `data-granted-scopes`). */
export function listed(html: string, list: string): string[] {
  const body = new RegExp(`<ul[^>]*\\s${list}>(.*?)</ul>`, 's').exec(html)?.[1] ?? ''
  return [...body.matchAll(/<code>([^<]*)<\/code>/g)].map((match) => match[1] as string)
}
