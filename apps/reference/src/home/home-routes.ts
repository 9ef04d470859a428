import { optional, required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { DEMO_USERS } from '../directory/demo-directory.js'
import { html } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'

const CARDS = [
  {
    href: '/keys',
    title: 'API keys',
    text: 'Issue, rotate with overlap and revoke keys; the key is shown once and stored as an HMAC digest.',
  },
  {
    href: '/tenants',
    title: 'Tenants',
    text: 'Pages guarded by requiresTenantRole, a tenant switcher, and what happens when you edit the tenant in the URL.',
  },
  {
    href: '/events',
    title: 'Security events',
    text: 'Your own recent sign-ins, sessions, CSRF refusals and key changes, from the app’s event sink.',
  },
  {
    href: '/agents',
    title: 'MCP',
    text: 'Routes published to AI agents as MCP resources, and a client configuration to copy.',
  },
] as const

/** `/`: what the demo shows, where to go, who the demo users are; `?deleted=1` confirms a deleted account. */
export function homeRoutes(security: Pick<Security, 'router'>, context: ReferenceContext): SecureRouter {
  const router = security.router()
  router.get('/', { auth: optional(required(SESSION_MECHANISM)) }, async (request, response) => {
    const viewer = await viewerFor(request.security, context.directory)
    const idp = context.idp
    sendPage(response, {
      title: 'Portcullis reference app',
      area: 'home',
      viewer,
      body: html`<p class="lead">Every Portcullis capability in one running app: route policy, API keys, workload
        JWTs, tenant guards, security events and MCP resources, over Postgres, with a demo OpenID Provider
        beside it. Pages are server-rendered and work without JavaScript.</p>
        ${
          viewer === undefined && request.query.deleted !== undefined
            ? html`<p class="notice success" role="status" data-testid="deleted">Your account was deleted, with its
                sign-in methods, sessions and API keys. You are signed out.</p>`
            : ''
        }
        ${viewer === undefined ? html`<p class="notice">Start by <a href="/sign-in">signing in</a> as one of the demo users.</p>` : ''}
        <div class="grid">${CARDS.map(
          (card) =>
            html`<a class="card" href="${card.href}"><strong>${card.title}</strong><br><span class="muted">${card.text}</span></a>`,
        )}</div>
        <h2>Demo users</h2>
        <table data-testid="demo-users"><thead><tr><th>User</th><th>Grants</th></tr></thead><tbody>
          ${DEMO_USERS.map((user) => html`<tr><td>${user.displayName} <code>${user.username}</code></td><td>${user.summary}</td></tr>`)}
        </tbody></table>
        <h2>Identity providers</h2>
        <ul class="plain">
          ${
            idp === undefined
              ? html`<li>The demo OpenID Provider is off (<code>PORTCULLIS_DEMO_IDP=false</code>).</li>`
              : html`<li>Demo OpenID Provider at <a href="${idp.issuer}/">${idp.issuer}</a>: its login page lets you
                  choose the user, the authentication time, the ACR and the AMR (for revalidate and reauthenticate
                  with <code>max_age=0</code>). <a href="${idp.issuer}/playground">Try a login</a>.</li>`
          }
          ${
            context.providers.length === 0
              ? html`<li class="muted">No real provider enabled; see <code>docs/reference-app.md</code> for the environment variables.</li>`
              : context.providers.map(
                  (provider) =>
                    html`<li>${provider.kind} <span class="muted">(client ${provider.clientId})</span></li>`,
                )
          }
        </ul>
        <h2>Machines</h2>
        <ul class="plain">
          <li><a href="/openapi.json">OpenAPI document</a> of every route and its security requirements.</li>
          <li>Workload JWTs: <code>pnpm --filter @portcullis/reference cli workload-jwt</code>, then
            <code>curl -H "Authorization: Bearer $TOKEN" ${context.publicOrigin}/api/whoami</code>.</li>
        </ul>`,
    })
  })
  return router
}
