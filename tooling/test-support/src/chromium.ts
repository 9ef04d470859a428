import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Browser as PlaywrightBrowser } from 'playwright-core'

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']

/** Debian's `chromium` package (never a browser downloaded by a test tool), or undefined: tests skip. */
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

/** No sandbox (CI runs as root), no GPU, no network side traffic. */
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

/** Headless Chromium with a fresh profile, removed on `close()`. */
export async function launchChromium(
  options: { readonly viewport?: { readonly width: number; readonly height: number } } = {},
): Promise<Browser> {
  if (chromiumPath === undefined) throw new Error('no Chromium binary')
  const profile = await mkdtemp(join(tmpdir(), 'portcullis-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1200, height: 800, ...options.viewport },
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
