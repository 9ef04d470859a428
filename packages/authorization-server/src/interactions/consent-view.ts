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
  readonly accountId: string
  /** Scopes not yet granted to this client by this user. */
  readonly scopes: readonly ConsentScope[]
  /** Scopes this user already granted to this client. */
  readonly grantedScopes: readonly ConsentScope[]
  /** The resources (RFC 8707 indicators) the access tokens will be for. */
  readonly resources: readonly string[]
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

/** Escapes text for an HTML element body or a double-quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character)
}

const scopeItems = (scopes: readonly ConsentScope[]) =>
  scopes
    .map(
      (scope) =>
        `<li><code>${escapeHtml(scope.name)}</code>${
          scope.description === undefined ? '' : ` <span>${escapeHtml(scope.description)}</span>`
        }</li>`,
    )
    .join('')

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5}.host{font-size:1.4rem;font-weight:700}.warn{color:#8a4b00}button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}</style></head><body>${body}</body></html>`

/** The default consent page: the client's real host first, then its self-declared name, scopes and resources. */
export function renderDefaultConsent(view: ConsentView): string {
  const host = view.client.idHost ?? view.client.id
  const name =
    view.client.name === undefined
      ? ''
      : `<p>It calls itself <strong data-client-name>${escapeHtml(view.client.name)}</strong> (a name the application chose, not verified).</p>`
  const redirect =
    view.client.redirectHost === undefined
      ? ''
      : `<p>After you answer, you are sent to <strong data-redirect-host>${escapeHtml(view.client.redirectHost)}</strong>.</p>`
  const granted =
    view.grantedScopes.length === 0
      ? ''
      : `<p>Already allowed:</p><ul data-granted-scopes>${scopeItems(view.grantedScopes)}</ul>`
  const resources =
    view.resources.length === 0
      ? ''
      : `<p>For:</p><ul data-resources>${view.resources.map((resource) => `<li><code>${escapeHtml(resource)}</code></li>`).join('')}</ul>`
  return page(
    'Allow access?',
    `<h1>Allow access?</h1>
<p>An application from</p><p class="host" data-client-host>${escapeHtml(host)}</p>
${name}${redirect}
<p>asks to act as you (<span data-account>${escapeHtml(view.accountId)}</span>)${view.scopes.length === 0 ? ' again.' : ' with:'}</p>
${view.scopes.length === 0 ? '' : `<ul data-scopes>${scopeItems(view.scopes)}</ul>`}
${granted}${resources}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrfToken)}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  )
}

/** The page of an interaction that cannot go on (unknown, expired, refused). */
export function renderInteractionError(title: string, detail: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>`)
}
