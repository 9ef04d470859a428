import type { SecurityContext } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { retryAfterFor, type Security } from '@portcullis/express'
import type { Request, Response } from 'express'
import { addressBanner } from '../account-email/address-banner.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { DemoDirectory } from '../directory/demo-directory.js'
import { type ActingFor, impersonationBanner } from '../impersonation/impersonation-banner.js'
import { html, type SafeHtml } from './html.js'

/** The pages of local accounts (forms posting to thin handlers over the `LocalAccounts` service). */
export const SIGN_IN_PATH = '/sign-in'
export const SIGN_UP_PATH = '/sign-up'
export const SIGN_OUT_PATH = '/sign-out'
export const ACCOUNT_PATH = '/account'
export const STYLESHEET_PATH = '/assets/portcullis.css'
/** The one script: passkey ceremonies (WebAuthn needs JavaScript); every other page works without it. */
export const PASSKEYS_SCRIPT_PATH = '/assets/passkeys.js'
/** Fills a code field from a mail link's fragment (`#code=`); without it the person types the code. */
export const CODE_LINK_SCRIPT_PATH = '/assets/code-link.js'
/** Copy buttons (shown only where the script runs; the text stays selectable without it). */
export const COPY_SCRIPT_PATH = '/assets/copy.js'

/** The signed-in person as the layout shows them. */
export interface Viewer {
  readonly accountId: string
  readonly username: string
  readonly displayName: string
  /** The primary address while it waits for verification (the pages show a banner). */
  readonly unverifiedAddress?: string
  /** During an impersonation: whom the administrator acts as (every page shows a banner). */
  readonly actingFor?: ActingFor
}

export type Area = 'home' | 'keys' | 'apps' | 'tenants' | 'events' | 'mcp' | 'account' | 'sign-in' | 'none'

const NAVIGATION: readonly { readonly area: Area; readonly href: string; readonly label: string }[] = [
  { area: 'home', href: '/', label: 'Home' },
  { area: 'keys', href: '/keys', label: 'API keys' },
  { area: 'apps', href: '/connected-apps', label: 'Connected apps' },
  { area: 'tenants', href: '/tenants', label: 'Tenants' },
  { area: 'events', href: '/events', label: 'Security events' },
  { area: 'mcp', href: '/agents', label: 'MCP' },
]

/**
 * The viewer of a request, when a user signed in (services and anonymous callers have none), named
 * without asking the database: a demo user's name, else the name a page last showed for the account.
 * Pages use `viewerFor`; this is for pages that cannot wait (an error page).
 */
export function viewerOf(
  security: SecurityContext | undefined,
  directory: DemoDirectory,
): Viewer | undefined {
  const principal = security?.principal
  if (principal === null || principal === undefined || principal.kind !== 'user') return undefined
  const user = directory.user(principal.id)
  const known = user === undefined ? directory.names.known(principal.id) : undefined
  const displayName = user?.displayName ?? known ?? principal.displayName ?? principal.id
  const impersonator = principal.impersonator
  const administrator =
    impersonator === undefined
      ? undefined
      : (directory.user(impersonator.accountId)?.displayName ??
        directory.names.known(impersonator.accountId) ??
        impersonator.accountId)
  return {
    accountId: principal.id,
    username: user?.username ?? known ?? principal.id,
    displayName,
    ...(administrator === undefined ? {} : { actingFor: { account: displayName, administrator } }),
  }
}

/**
 * The viewer of a request, named as people know the account: a demo user's name, else the password's
 * username, else the provider's email (the account id only when the account has no name at all).
 */
export async function viewerFor(
  security: SecurityContext | undefined,
  directory: DemoDirectory,
): Promise<Viewer | undefined> {
  const principal = security?.principal
  if (principal?.kind === 'user' && directory.user(principal.id) === undefined)
    await directory.names.resolve(principal.id)
  const viewer = viewerOf(security, directory)
  if (viewer === undefined) return undefined
  const unverifiedAddress = await directory.addresses.primaryOf(viewer.accountId)
  return unverifiedAddress === undefined ? viewer : { ...viewer, unverifiedAddress }
}

/**
 * The viewer of a request whose route reads no credential (sign-in, sign-up, an error page before any
 * route): its session cookie checked as a signed-in page checks it. A missing, expired or refused
 * session is no viewer (the page then offers to sign in); it never fails the page.
 */
export async function sessionViewer(
  security: Pick<Security, 'evaluation' | 'evaluator'>,
  request: Request,
  directory: DemoDirectory,
): Promise<Viewer | undefined> {
  try {
    if (request.security?.principal?.kind === 'user') return await viewerFor(request.security, directory)
    const outcome = await security.evaluation(request).evaluate(security.evaluator.compile(SESSION_POLICY))
    return outcome.kind === 'granted' ? await viewerFor(outcome.context, directory) : undefined
  } catch {
    // A session store or directory that does not answer (an outage): the page still renders, and
    // names the viewer as far as it can without them.
    return viewerOf(request.security, directory)
  }
}
const SESSION_POLICY = required(SESSION_MECHANISM)

/** A copy button for the element `targetId` (hidden until the copy script shows it). */
export const copyButton = (targetId: string, label = 'Copy'): SafeHtml =>
  html`<button type="button" class="secondary copy" data-copy="${targetId}" hidden>${label}</button>`

export interface PageInit {
  readonly title: string
  readonly area: Area
  readonly viewer: Viewer | undefined
  readonly body: SafeHtml
}

function account(init: PageInit): SafeHtml {
  const viewer = init.viewer
  if (viewer === undefined)
    return html`<a class="button" href="${SIGN_IN_PATH}">Sign in</a> <a href="${SIGN_UP_PATH}">Sign up</a>`
  const who = html`<a class="who" href="${ACCOUNT_PATH}"${init.area === 'account' ? html` aria-current="page"` : ''}>${viewer.displayName}</a>`
  // During an impersonation the banner's End button hands the administrator's session back instead.
  if (viewer.actingFor !== undefined) return who
  return html`${who}
    <form method="post" action="${SIGN_OUT_PATH}" class="inline"><button type="submit" class="link">Sign out</button></form>`
}

/** The shared layout: header with navigation and the account, the page, a footer. */
export function layout(init: PageInit): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${init.title === 'Portcullis reference app' ? init.title : `${init.title} · Portcullis reference app`}</title>
  <link rel="stylesheet" href="${STYLESHEET_PATH}">
  <script src="${COPY_SCRIPT_PATH}" defer></script>
</head>
<body>
  <header class="top">
    <a class="brand" href="/">Portcullis <span>reference app</span></a>
    <nav aria-label="Main">
      ${NAVIGATION.map(
        (item) =>
          html`<a href="${item.href}"${item.area === init.area ? html` aria-current="page"` : ''}>${item.label}</a>`,
      )}
    </nav>
    <div class="account">${account(init)}</div>
  </header>
  <main>
    ${impersonationBanner(init.viewer?.actingFor)}
    ${addressBanner(init.viewer?.unverifiedAddress)}
    <h1>${init.title}</h1>
    ${init.body}
  </main>
  <footer>Portcullis reference app · server-rendered, JavaScript only for passkeys and copy buttons · <a href="/openapi.json">OpenAPI</a> · <a href="/healthz">health</a></footer>
</body>
</html>
`
}

/**
 * Sends a page as HTML. A 503 or 429 page always carries `Retry-After`: the one a handler set from its
 * cause (`retryHint`), or the default of its status.
 */
export function sendPage(response: Response, init: PageInit, status = 200): void {
  if (!response.hasHeader('Retry-After')) {
    const retryAfter = retryAfterFor(status)
    if (retryAfter !== undefined) response.setHeader('Retry-After', retryAfter)
  }
  response.status(status).type('html').send(layout(init).toString())
}
