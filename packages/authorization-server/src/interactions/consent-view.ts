import { defaultLayout, escapeHtml, PAGE_PARTS_STYLE } from './pages.js'

/** One scope the consent page asks for. */
export interface ConsentScope {
  readonly name: string
  /** From the `scopeDescriptions` option; undefined when none is configured. */
  readonly description: string | undefined
}

/** Everything the consent page shows and posts; a custom `renderConsent` must escape every string. */
export interface ConsentView {
  readonly uid: string
  /** The form's action (the interaction URL) and its CSRF token, posted as `csrf`. */
  readonly action: string
  readonly csrfToken: string
  readonly client: {
    readonly id: string
    /** `client_name` of the client's metadata; chosen by the client, so never trusted on its own. */
    readonly name: string | undefined
    /** The host of a URL `client_id` (a client ID metadata document): who the client really is. */
    readonly idHost: string | undefined
    /** The host the authorization response is sent to. */
    readonly redirectHost: string | undefined
  }
  /** The account's internal id. */
  readonly accountId: string
  /** The account as its owner knows it (`InteractionUser.name`), else its id. */
  readonly accountName: string
  /** Scopes not yet granted to this client by this user. */
  readonly scopes: readonly ConsentScope[]
  /** Scopes this user already granted to this client. */
  readonly grantedScopes: readonly ConsentScope[]
  /** The resources (RFC 8707 indicators) the access tokens will be for. */
  readonly resources: readonly string[]
}

/** The host a person can check: the client id's (a metadata document's URL), else its redirect URI's. */
export function clientHostOf(view: ConsentView): string {
  return view.client.idHost ?? view.client.redirectHost ?? view.client.id
}

/** The consent page's headline: the client's name (never verified: the badge says so), else its host. */
export function consentTitle(view: ConsentView): string {
  return view.client.name === undefined
    ? `Connect an application from ${clientHostOf(view)}?`
    : `Connect ${view.client.name}?`
}

const scopeItems = (scopes: readonly ConsentScope[]) =>
  scopes
    .map((scope) =>
      scope.description === undefined
        ? `<li><code>${escapeHtml(scope.name)}</code></li>`
        : `<li>${escapeHtml(scope.description)} <code>${escapeHtml(scope.name)}</code></li>`,
    )
    .join('')

/**
 * The consent page's content: who asks (the client's self-chosen name, marked unverified, and the host
 * that really identifies it), for which account, which scopes and resources, where the answer goes, and
 * the Allow / Deny form.
 */
export function consentBody(view: ConsentView): string {
  const host = clientHostOf(view)
  const name =
    view.client.name === undefined
      ? `<span class="pc-name" data-client-host-name>${escapeHtml(host)}</span>`
      : `<span class="pc-name" data-client-name>${escapeHtml(view.client.name)}</span>`
  const redirect =
    view.client.redirectHost === undefined
      ? ''
      : `<p class="pc-note">After you answer, you are sent back to <strong data-redirect-host>${escapeHtml(view.client.redirectHost)}</strong>.</p>`
  const granted =
    view.grantedScopes.length === 0
      ? ''
      : `<p>Already allowed:</p><ul class="pc-scopes" data-granted-scopes>${scopeItems(view.grantedScopes)}</ul>`
  const resources =
    view.resources.length === 0
      ? ''
      : `<p class="pc-note">For:</p><ul class="pc-scopes pc-note" data-resources>${view.resources.map((resource) => `<li><code>${escapeHtml(resource)}</code></li>`).join('')}</ul>`
  const asks =
    view.scopes.length === 0
      ? '<p>It asks to go on acting as you, with what you already allowed.</p>'
      : `<p>It asks to act as you with:</p><ul class="pc-scopes" data-scopes>${scopeItems(view.scopes)}</ul>`
  return `${PAGE_PARTS_STYLE}<div class="pc-page" data-consent>
<div class="pc-card">
<p class="pc-client">${name} <span class="pc-badge" data-unverified title="The application chose this name itself">unverified</span></p>
<p class="pc-host">from <strong data-client-host>${escapeHtml(host)}</strong></p>
<p class="pc-note">Its name is the one the application gave itself. Allow only if you just started connecting it from ${escapeHtml(host)}.</p>
</div>
<p>Signed in as <strong data-account>${escapeHtml(view.accountName)}</strong>.</p>
${asks}${granted}${resources}${redirect}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrfToken)}">
<div class="pc-actions">
<button type="submit" class="pc-allow" name="decision" value="approve">Allow</button>
<button type="submit" class="pc-deny" name="decision" value="deny">Deny</button>
</div>
</form>
</div>`
}

/** The default consent page: the content of `consentBody` in the default layout. */
export function renderDefaultConsent(view: ConsentView): string {
  return defaultLayout({ title: consentTitle(view), body: consentBody(view) })
}
