import type Provider from 'oidc-provider'

type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>

import { DEMO_USERS } from '../directory/demo-directory.js'
import { html, type SafeHtml } from '../layout/html.js'

/** ACR values the demo IdP advertises and lets the login page assert. */
export const DEMO_ACR_VALUES = ['urn:portcullis:demo:acr:password', 'urn:portcullis:demo:acr:mfa'] as const
/** AMR values (RFC 8176) the login page offers. */
export const DEMO_AMR_VALUES = ['pwd', 'otp', 'hwk', 'mfa', 'pin', 'face'] as const
/** How long ago the user "authenticated", in seconds: `auth_time = now - age`. */
export const AUTH_AGES: readonly { readonly seconds: number; readonly label: string }[] = [
  { seconds: 0, label: 'now' },
  { seconds: 300, label: '5 minutes ago' },
  { seconds: 900, label: '15 minutes ago' },
  { seconds: 3600, label: '1 hour ago' },
  { seconds: 86_400, label: '1 day ago' },
]

/**
 * People the demo IdP knows who are not demo users of the app: no account is linked to them, so the first
 * sign-in of one creates a new account in the app (sign-up with the IdP). The demo users' identities are
 * linked to their own accounts when the app starts.
 */
export const DEMO_IDP_NEWCOMERS: readonly { readonly username: string; readonly displayName: string }[] = [
  { username: 'dana', displayName: 'Dana Diaz' },
]

/** Everyone who may sign in at the demo IdP: the demo users, then the newcomers. */
export const DEMO_IDP_PEOPLE: readonly { readonly username: string; readonly displayName: string }[] = [
  ...DEMO_USERS,
  ...DEMO_IDP_NEWCOMERS,
]

/** A checked login submission. */
export interface LoginChoice {
  readonly username: string
  readonly authAgeSeconds: number
  readonly acr: string | undefined
  readonly amr: readonly string[]
}

/** Validates the posted form against the offered choices; undefined for anything else. */
export function readLoginChoice(form: URLSearchParams): LoginChoice | undefined {
  const username = form.get('username') ?? ''
  const age = Number(form.get('auth_age') ?? 'NaN')
  const acr = form.get('acr') ?? ''
  const amr = form.getAll('amr')
  if (!DEMO_IDP_PEOPLE.some((person) => person.username === username)) return undefined
  if (!AUTH_AGES.some((choice) => choice.seconds === age)) return undefined
  if (acr !== '' && !(DEMO_ACR_VALUES as readonly string[]).includes(acr)) return undefined
  if (!amr.every((value) => (DEMO_AMR_VALUES as readonly string[]).includes(value))) return undefined
  return { username, authAgeSeconds: age, acr: acr === '' ? undefined : acr, amr: [...new Set(amr)] }
}

function requested(params: Record<string, unknown>): SafeHtml {
  const facts: [string, unknown][] = [
    ['client', params.client_id],
    ['scope', params.scope],
    ['max_age', params.max_age],
    ['acr_values', params.acr_values],
    ['prompt', params.prompt],
  ]
  return html`<dl class="facts" data-testid="request">${facts
    .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
    .map(([name, value]) => html`<dt>${name}</dt><dd><code>${String(value)}</code></dd>`)}</dl>`
}

/** The login form of one interaction: who, when, how strongly (ACR) and by which methods (AMR). */
export function loginForm(details: InteractionDetails): SafeHtml {
  const wanted = String(details.params.acr_values ?? '').split(' ')
  const preselected = DEMO_ACR_VALUES.find((value) => wanted.includes(value))
  return html`<p class="lead">A demo identity provider: nobody types a password here. Choose who signs in and
    how, and the ID token says exactly that (<code>sub</code>, <code>auth_time</code>, <code>acr</code>,
    <code>amr</code>), so the app's freshness and step-up checks can be tried offline.</p>
  <div class="card"><h2>The application asks for</h2>${requested(details.params)}</div>
  <form method="post" action="/interaction/${details.uid}" class="stack card">
    <fieldset><legend>User</legend>
      <p class="muted">Each demo user is the same person as in the application: signing in here opens
        their own account there.</p>${DEMO_USERS.map(
          (
            user,
            index,
          ) => html`<label class="check"><input type="radio" name="username" value="${user.username}"${index === 0 ? html` checked` : ''}>
        ${user.displayName} <code>${user.username}</code> <span class="muted">(${user.displayName.split(' ')[0]}'s account)</span></label>`,
        )}
      ${DEMO_IDP_NEWCOMERS.map(
        (person) => html`<label class="check"><input type="radio" name="username" value="${person.username}">
        ${person.displayName} <code>${person.username}</code> <span class="muted">(new to the application: the first
        sign-in creates a new account, with no tenants)</span></label>`,
      )}</fieldset>
    <label>Authenticated <select name="auth_age">${AUTH_AGES.map(
      (choice) => html`<option value="${choice.seconds}">${choice.label}</option>`,
    )}</select></label>
    <label>Authentication context (ACR) <select name="acr">
      <option value="">none</option>
      ${DEMO_ACR_VALUES.map((value) => html`<option value="${value}"${value === preselected ? html` selected` : ''}>${value}</option>`)}
    </select></label>
    <fieldset><legend>Methods (AMR)</legend>${DEMO_AMR_VALUES.map(
      (value) =>
        html`<label class="check"><input type="checkbox" name="amr" value="${value}"${value === 'pwd' ? html` checked` : ''}> <code>${value}</code></label>`,
    )}</fieldset>
    <div><button type="submit">Sign in</button></div>
  </form>
  <form method="post" action="/interaction/${details.uid}/abort"><button type="submit" class="secondary">Cancel</button></form>`
}

/** The IdP's own page frame (no app navigation: it is another site). */
export function idpPage(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Demo OpenID Provider</title><link rel="stylesheet" href="/style.css"></head>
<body><header class="top"><span class="brand">Demo OpenID Provider <span>for the Portcullis reference app</span></span></header>
<main><h1>${title}</h1>${body}</main></body></html>
`.toString()
}
