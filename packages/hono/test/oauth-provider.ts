import type { OAuthTestProvider } from '@portcullis/conformance/adapters'
import { OidcFixture } from '../../core/test/oidc/support/fixture.js'

/** A real OpenID Provider (oidc-provider on loopback) behind the core lifecycle, for the OAuth cases. */
export async function oauthTestProvider(): Promise<OAuthTestProvider> {
  const fixture = await OidcFixture.create()
  return {
    lifecycle: fixture.lifecycle,
    stepUp: fixture.stepUp,
    async authorize(redirectUrl, subject) {
      fixture.browser.clearCookies()
      fixture.idp.nextLogin = { accountId: subject }
      const callback = await fixture.authorize(redirectUrl)
      return `${callback.pathname}${callback.search}`
    },
    close: () => fixture.close(),
  }
}
