import type { EmailAddress } from '@portcullis/core/accounts'
import { html, type SafeHtml } from '../layout/html.js'

/** Where the banner's button posts (the same route as the account page's "Send a new code"). */
const RESEND_PATH = '/account/email/addresses/resend'

/**
 * Whether a signed-in account's primary address still waits for its verification: what the layout
 * asks before every signed-in page (one read of the account's addresses). Unset (no mail flows) or
 * failing, it answers nothing and the page shows no banner.
 */
export class UnverifiedAddresses {
  #lookup: ((accountId: string) => Promise<readonly EmailAddress[]>) | undefined

  /** Where addresses come from (set once the account store exists). */
  use(lookup: (accountId: string) => Promise<readonly EmailAddress[]>): void {
    this.#lookup = lookup
  }

  /** The account's primary address while it is unverified; undefined otherwise. */
  async primaryOf(accountId: string): Promise<string | undefined> {
    const lookup = this.#lookup
    if (lookup === undefined) return undefined
    try {
      const primary = (await lookup(accountId)).find((address) => address.primary)
      return primary !== undefined && !primary.verified ? primary.address : undefined
    } catch {
      // A store that does not answer: the page renders without the banner.
      return undefined
    }
  }
}

/** The banner of signed-in pages while the primary address is unverified, with a resend button. */
export function addressBanner(address: string | undefined): SafeHtml {
  if (address === undefined) return html``
  return html`<section class="notice warning" role="status" data-testid="verify-banner" aria-label="Verify your address">
      <p>Verify your address <code>${address}</code>: until then, a forgotten password cannot be reset by mail and
        security notices cannot reach you. Open the link in the mail we sent.</p>
      <form method="post" action="${RESEND_PATH}" class="inline">
        <input type="hidden" name="address" value="${address}">
        <button type="submit" class="secondary">Send the code again</button></form>
    </section>`
}
