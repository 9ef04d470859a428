import { OidcFixture } from './fixture.js'

/**
 * A real OpenID Provider (oidc-provider on loopback) behind the core lifecycle, for the OAuth cases of
 * the adapter suite (`OAuthTestProvider` of `@portcullis/conformance/adapters`, matched structurally:
 * core's tests do not depend on the kit).
 */
export async function oauthTestProvider() {
  const fixture = await OidcFixture.create()
  return {
    lifecycle: fixture.lifecycle,
    stepUp: fixture.stepUp,
    async authorize(redirectUrl: string, subject: string): Promise<string> {
      fixture.browser.clearCookies()
      fixture.idp.nextLogin = { accountId: subject }
      const callback = await fixture.authorize(redirectUrl)
      return `${callback.pathname}${callback.search}`
    },
    close: () => fixture.close(),
  }
}
