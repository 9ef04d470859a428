import { createServer } from 'node:net'
import type { CDPSession, Page } from 'playwright-core'
import { type Browser, launchChromium } from './chromium.js'
import { startTestApp, type TestApp } from './reference-app.js'

/** A loopback port free at the time of asking. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  return typeof address === 'object' && address !== null ? address.port : 0
}

export interface PasskeyBrowser {
  readonly app: TestApp
  readonly browser: Browser
  readonly page: Page
  /** The page's DevTools session, its WebAuthn domain enabled (no browser UI). */
  readonly cdp: CDPSession
  /** The app's public origin, `http://localhost:<port>`. */
  readonly base: string
}

/**
 * The reference app and a Chromium page for passkeys: WebAuthn needs a host name, so the app's public
 * origin is http://localhost on a port chosen here. The caller closes `browser` and `app`.
 */
export async function startPasskeyBrowser(): Promise<PasskeyBrowser> {
  const port = await freePort()
  const base = `http://localhost:${port}`
  const app = await startTestApp({ port, publicUrl: base })
  const browser = await launchChromium()
  const page = await browser.context.newPage()
  page.setDefaultTimeout(15_000)
  const cdp = await browser.context.newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  return { app, browser, page, cdp, base }
}

/**
 * A virtual authenticator standing in for the person's device: CTAP2, platform (internal), resident
 * keys, user verification that succeeds, presence given without a prompt. Its id.
 */
export async function addVirtualAuthenticator(cdp: CDPSession): Promise<string> {
  const added = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return added.authenticatorId
}
