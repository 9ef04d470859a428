import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'

/** Debian's `chromium` package (never a browser downloaded by a test tool). */
export const chromiumPath: string | undefined = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path) => existsSync(path),
)

if (chromiumPath === undefined) {
  console.warn('browser tests skipped: no Chromium binary at /usr/bin/chromium (apt-get install -y chromium)')
}

/** Headless Chromium with a fresh profile, no network side traffic, no sandbox (CI runs as root). */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (chromiumPath === undefined) throw new Error('no Chromium binary')
  const profile = await mkdtemp(join(tmpdir(), 'portcullis-as-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  })
  return {
    context,
    async close() {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}
