// The shared headless Debian Chromium of the test tooling (never a downloaded browser).
export { chromiumPath, launchChromium } from '@portcullis/test-support/chromium'
