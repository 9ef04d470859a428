import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BrowserContext, chromium, type Browser as PlaywrightBrowser } from 'playwright-core'

/** Debian's `chromium` package (never a browser downloaded by a test tool). */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']

/** The Chromium binary, or undefined when none is installed (browser tests then skip, saying why). */
export const chromiumPath: string | undefined = CANDIDATES.find((path) => existsSync(path))

if (chromiumPath === undefined) {
  console.warn(
    "browser tests skipped: no Chromium binary at /usr/bin/chromium (install Debian's chromium: apt-get install -y chromium)",
  )
}

export interface Browser {
  readonly context: BrowserContext
  close(): Promise<void>
}

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

/**
 * Headless Chromium for tests that need several people at once: each `newContext()` is a browser profile
 * of its own (its own cookies), all in one browser process.
 */
export async function launchChromiumBrowser(): Promise<PlaywrightBrowser> {
  if (chromiumPath === undefined) throw new Error('no Chromium binary')
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ARGS })
}

/** Headless Chromium with a fresh profile, no network side traffic, no sandbox (CI runs as root). */
export async function launchChromium(): Promise<Browser> {
  if (chromiumPath === undefined) throw new Error('no Chromium binary')
  const profile = await mkdtemp(join(tmpdir(), 'portcullis-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1200, height: 800 },
    args: ARGS,
  })
  return {
    context,
    async close() {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/**
 * Where the browser tests write their screenshots: `docs/images/` when `PORTCULLIS_SCREENSHOTS=update`
 * (they are the pictures of docs/reference-app.md; refresh them after a page changes), otherwise a
 * temporary folder, so a test run takes every screenshot but leaves the working tree as it was.
 */
export async function screenshotFolder(): Promise<string> {
  if (process.env.PORTCULLIS_SCREENSHOTS === 'update') {
    const images = fileURLToPath(new URL('../../../../docs/images/', import.meta.url))
    await mkdir(images, { recursive: true })
    return images
  }
  return mkdtemp(join(tmpdir(), 'portcullis-screenshots-'))
}
