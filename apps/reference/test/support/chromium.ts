import { mkdir, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// The shared headless Debian Chromium of the test tooling (never a downloaded browser).
export {
  type Browser,
  chromiumPath,
  launchChromium,
  launchChromiumBrowser,
} from '@portcullis/test-support/chromium'

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
