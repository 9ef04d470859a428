import type { AuthorizationSnapshot } from '@portcullis/core/authorization'
import type { Organization } from '@portcullis/core/organizations'
import { DEMO_TENANTS, type DemoTenant, demoInvoices } from '../directory/demo-directory.js'
import { html, type SafeHtml } from '../layout/html.js'

/** Tenant id -> its organization's name, for the viewer's tenants. */
export type TenantNames = ReadonlyMap<string, string>

/** A member of a tenant as its overview lists them. */
export interface TenantMember {
  readonly name: string
  readonly role: string
}

/**
 * A tenant as its pages show it: the organization (id, name as it is now), with the demo tenants' plan
 * and seats; an organization created on the organization pages is on the starter plan.
 */
export function tenantOf(organization: Organization, demo: DemoTenant | undefined): DemoTenant {
  return {
    id: organization.organizationId,
    name: organization.name,
    plan: demo?.plan ?? 'starter',
    seats: demo?.seats ?? 5,
  }
}

/** The membership's role (the snapshot lists the role first, then its permissions). */
const roles = (list: readonly string[]) =>
  list.length === 0 ? html`<span class="muted">member</span>` : html`<span class="badge">${list[0]}</span>`

/** The tenant switcher: a GET form (works without JavaScript) listing only the viewer's tenants. */
export function tenantSwitcher(
  snapshot: AuthorizationSnapshot,
  names: TenantNames,
  current?: string,
): SafeHtml {
  const mine = snapshot.tenantIds
  return html`<form method="get" action="/tenants" class="row card" aria-label="Switch tenant">
    <label>Tenant <select name="switch">${mine.map(
      (id) =>
        html`<option value="${id}"${id === current ? html` selected` : ''}>${names.get(id) ?? id}</option>`,
    )}</select></label>
    <button type="submit" class="secondary">Switch</button>
  </form>`
}

/** `/tenants`: the viewer's memberships, and how the tenant check works. */
export function tenantListPage(snapshot: AuthorizationSnapshot, names: TenantNames): SafeHtml {
  const others = DEMO_TENANTS.filter((tenant) => !snapshot.inTenant(tenant.id))
  return html`<p class="lead">Tenant pages are guarded by <code>requiresTenant()</code> and
    <code>requiresTenantRole({ roles })</code>. The tenant comes from the URL path and is checked against the
    authorization snapshot the server resolved for you, so changing it in the URL cannot grant access.</p>
  ${tenantSwitcher(snapshot, names)}
  <p>The tenants are organizations: <a href="/organizations">your organizations</a> lists them, with their
    members, invitations and domains.</p>
  <table data-testid="memberships"><thead><tr><th>Tenant</th><th>Your roles</th><th>Pages</th></tr></thead><tbody>
  ${snapshot.tenantIds.map((id) => {
    return html`<tr><td><a href="/tenants/${id}">${names.get(id) ?? id}</a> <code>${id}</code></td><td>${roles(snapshot.tenantRoles(id))}</td>
      <td><a href="/tenants/${id}">overview</a> · <a href="/tenants/${id}/billing">billing</a> · <a href="/tenants/${id}/settings">settings</a></td></tr>`
  })}
  </tbody></table>
  ${
    others.length === 0
      ? ''
      : html`<p class="notice">Try it: <a href="/tenants/${others[0]?.id}">/tenants/${others[0]?.id}</a> is a tenant you
        do not belong to. The server answers 403 whatever the URL says.</p>`
  }`
}

/** `/tenants/:tenantId`: the overview every member may see. */
export function tenantOverviewPage(
  tenant: DemoTenant,
  snapshot: AuthorizationSnapshot,
  names: TenantNames,
  members: readonly TenantMember[],
): SafeHtml {
  return html`${tenantSwitcher(snapshot, names, tenant.id)}
  <div class="grid">
    <div class="card"><h2>${tenant.name}</h2><dl class="facts">
      <dt>Tenant id</dt><dd><code>${tenant.id}</code></dd>
      <dt>Plan</dt><dd>${tenant.plan}</dd>
      <dt>Seats</dt><dd>${tenant.seats}</dd>
      <dt>Your roles</dt><dd data-testid="roles">${roles(snapshot.tenantRoles(tenant.id))}</dd>
    </dl></div>
    <div class="card"><h2>Pages</h2><ul class="plain">
      <li><a href="/tenants/${tenant.id}/billing">Billing</a> <span class="muted">owner or billing</span></li>
      <li><a href="/tenants/${tenant.id}/settings">Settings</a> <span class="muted">owner only</span></li>
      <li><a href="/organizations/${tenant.id}">Members and invitations</a></li>
    </ul></div>
  </div>
  <h2>Members</h2>
  <table data-testid="tenant-members"><thead><tr><th>Member</th><th>Role</th></tr></thead><tbody>
    ${members.map((member) => html`<tr><td data-label="Member">${member.name}</td><td data-label="Role">${roles([member.role])}</td></tr>`)}
  </tbody></table>`
}

/** `/tenants/:tenantId/billing`: owner or billing. */
export function tenantBillingPage(tenant: DemoTenant): SafeHtml {
  const invoices = demoInvoices(tenant)
  return html`<p class="lead">Guarded by <code>requiresTenantRole({ roles: ['owner', 'billing'] })</code>.</p>
  <table data-testid="invoices"><thead><tr><th>Invoice</th><th>Month</th><th>Amount</th></tr></thead><tbody>
    ${invoices.map((invoice) => html`<tr><td><code>${invoice.id}</code></td><td>${invoice.month}</td><td>${(invoice.amountCents / 100).toFixed(2)} EUR</td></tr>`)}
  </tbody></table>
  <p>The same data is published to agents as the MCP resource template <code>tenant://${tenant.id}/projection</code>.</p>`
}

/** `/tenants/:tenantId/settings`: owner only. */
export function tenantSettingsPage(tenant: DemoTenant): SafeHtml {
  return html`<p class="lead">Guarded by <code>requiresTenantRole({ roles: ['owner'] })</code>.</p>
  <div class="card"><dl class="facts">
    <dt>Display name</dt><dd>${tenant.name}</dd>
    <dt>Single sign-on</dt><dd>demo OpenID Provider (and any real provider you enable)</dd>
    <dt>Session lifetime</dt><dd>8 hours</dd>
  </dl></div>`
}
