import type {
  AccountOrganization,
  Invitation,
  JoinRequest,
  OrganizationRoles,
} from '@portcullis/core/organizations'
import { OrganizationPermissions } from '@portcullis/core/organizations'
import { fieldError, flashNotice } from '../accounts/page-kit.js'
import type { Flash } from '../layout/flash.js'
import { html, type SafeHtml } from '../layout/html.js'
import { readableTime } from '../layout/readable.js'
import type { OrganizationSuggestion } from './organization-wiring.js'

/** Where the viewer's organizations are listed (and a new one is created). */
export const ORGANIZATIONS_PATH = '/organizations'
export const organizationPath = (organizationId: string) =>
  `${ORGANIZATIONS_PATH}/${encodeURIComponent(organizationId)}`

/** A member as the organization page lists them. */
export interface MemberRow {
  readonly accountId: string
  readonly name: string
  readonly role: string
  readonly joinedAt: Date
}

/** What the organization page needs: the organization, the viewer's role and token, the lists. */
export interface OrganizationView {
  readonly organizationId: string
  readonly name: string
  /** The viewer's role here, then its permissions (the snapshot's tenant roles). */
  readonly held: readonly string[]
  readonly viewerId: string
  readonly members: readonly MemberRow[]
  /** Only for a viewer who may invite. */
  readonly invitations: readonly Invitation[]
  /** The pending requests to join (a verified domain in suggestion mode); only for a viewer who may invite. */
  readonly joinRequests?: readonly JoinRequest[]
  readonly roles: OrganizationRoles
  readonly csrfToken: string
  readonly flash: Flash | undefined
  readonly now: Date
}

const csrf = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}">`

/**
 * `/organizations`: the viewer's organizations, the session's active one (a choice the session keeps;
 * **Make active** switches), a link into each one's tenant pages, and a new organization.
 */
export function organizationListPage(input: {
  readonly mine: readonly AccountOrganization[]
  /** The session's active organization, if it has one and is still a member. */
  readonly active: string | undefined
  readonly csrfToken: string
  readonly flash: Flash | undefined
  /** Organizations at the domain of a verified address of the viewer (suggestion mode). */
  readonly suggestions?: readonly OrganizationSuggestion[]
}): SafeHtml {
  const id = fieldError(input.flash, 'organization_id')
  const suggestions = input.suggestions ?? []
  return html`${flashNotice(input.flash)}
    <p class="lead">Organizations are the tenants of this app. Your membership's role is read from the
      organization store on every request, never from the request, so <code>requiresTenantRole</code>
      guards the tenant pages with it.</p>
    ${
      input.mine.length === 0
        ? html`<p class="muted" data-testid="no-organizations">You belong to no organization yet.</p>`
        : html`<table data-testid="organizations"><thead><tr><th>Organization</th><th>Your role</th><th>Switch</th></tr></thead><tbody>
          ${input.mine.map(
            (each) => html`<tr data-organization="${each.organizationId}">
              <td data-label="Organization"><a href="${organizationPath(each.organizationId)}">${each.organizationName}</a> <code>${each.organizationId}</code></td>
              <td data-label="Your role"><span class="badge">${each.role}</span></td>
              <td data-label="Open">${
                each.organizationId === input.active
                  ? html`<span class="badge active" data-testid="active">active</span>`
                  : html`<form method="post" action="${ORGANIZATIONS_PATH}/active" class="inline">${csrf(input.csrfToken)}
                      <input type="hidden" name="organization_id" value="${each.organizationId}">
                      <button type="submit" class="secondary">Make active</button></form>`
              } <a href="/tenants/${each.organizationId}">Tenant pages</a></td></tr>`,
          )}</tbody></table>`
    }
    ${
      suggestions.length === 0
        ? ''
        : html`<section class="card" data-testid="suggestions"><h2>Organizations at your verified domain</h2>
          <ul class="plain">${suggestions.map(
            (each) =>
              html`<li data-suggestion="${each.organizationId}">${each.name} <span class="muted">(${each.domain})</span> ${
                each.requested
                  ? html`<span class="badge" data-testid="join-requested">asked: waiting for an administrator</span>`
                  : html`<form method="post" action="${organizationPath(each.organizationId)}/join-requests" class="inline">${csrf(input.csrfToken)}
                      <button type="submit" class="secondary">Ask to join</button></form>`
              }</li>`,
          )}</ul>
          <p class="muted">Asking tells its owners and admins; one of them approves or declines. Nobody joins by the
            domain of an address alone.</p></section>`
    }
    <form method="post" action="${ORGANIZATIONS_PATH}" class="stack card" aria-label="Create an organization">
      ${csrf(input.csrfToken)}
      <h2>Create an organization</h2>
      <label>Name <input name="name" maxlength="120" required></label>
      ${id.message}
      <label>Id <span class="muted">(lowercase letters, digits and hyphens: its tenant pages are /tenants/&lt;id&gt;)</span>
        <input name="organization_id" pattern="[a-z0-9][a-z0-9-]{0,62}" maxlength="63" required${id.invalid}></label>
      <div><button type="submit">Create</button></div>
    </form>`
}

const roleOptions = (roles: OrganizationRoles, myRole: string, selected?: string) =>
  roles.roles
    .filter((role) => roles.atOrBelow(myRole, role.name))
    .map(
      (role) =>
        html`<option value="${role.name}"${role.name === selected ? html` selected` : ''}>${role.name}</option>`,
    )

function memberRow(view: OrganizationView, member: MemberRow, canManage: boolean): SafeHtml {
  const path = organizationPath(view.organizationId)
  const myRole = view.held[0] ?? ''
  const own = member.accountId === view.viewerId
  const actions = own
    ? html`<form method="post" action="${path}/leave" class="inline">${csrf(view.csrfToken)}
        <button type="submit" class="danger">Leave</button></form>`
    : canManage && view.roles.atOrBelow(myRole, member.role)
      ? html`<form method="post" action="${path}/members/${encodeURIComponent(member.accountId)}/role" class="inline" aria-label="Role of ${member.name}">
            ${csrf(view.csrfToken)}
            <label>Role <select name="role">${roleOptions(view.roles, myRole, member.role)}</select></label>
            <button type="submit" class="secondary">Change role</button></form>
          <form method="post" action="${path}/members/${encodeURIComponent(member.accountId)}/remove" class="inline">
            ${csrf(view.csrfToken)}<button type="submit" class="danger">Remove</button></form>`
      : html`<span class="muted">none</span>`
  return html`<tr data-member="${member.name}">
    <td data-label="Member">${member.name}${own ? html` <span class="muted">(you)</span>` : ''}</td>
    <td data-label="Role"><span class="badge" data-testid="member-role">${member.role}</span></td>
    <td data-label="Joined">${readableTime(member.joinedAt, view.now)}</td>
    <td data-label="Actions">${actions}</td></tr>`
}

function invitationSection(view: OrganizationView): SafeHtml {
  const path = organizationPath(view.organizationId)
  const myRole = view.held[0] ?? ''
  const email = fieldError(view.flash, 'email')
  return html`<form method="post" action="${path}/invitations" class="stack card" aria-label="Invite someone">
      ${csrf(view.csrfToken)}
      <h2>Invite someone</h2>
      <p class="muted">The mail carries a code valid for 7 days. Only an account holding that address,
        verified, can accept it; someone new signs up from the link.</p>
      ${email.message}
      <label>Email address <input type="email" name="email" maxlength="254" required autocomplete="off"${email.invalid}></label>
      <label>Role <select name="role">${roleOptions(view.roles, myRole, 'viewer')}</select></label>
      <div><button type="submit">Send the invitation</button></div>
    </form>
    <h2>Pending invitations</h2>
    ${
      view.invitations.length === 0
        ? html`<p class="muted" data-testid="no-invitations">No invitation is pending.</p>`
        : html`<table data-testid="invitations"><thead><tr><th>Address</th><th>Role</th><th>Expires</th><th>Actions</th></tr></thead><tbody>
          ${view.invitations.map(
            (invitation) => html`<tr data-invitation="${invitation.address}">
              <td data-label="Address">${invitation.address}</td>
              <td data-label="Role"><span class="badge">${invitation.role}</span></td>
              <td data-label="Expires">${readableTime(invitation.expiresAt, view.now)}</td>
              <td data-label="Actions">
                <form method="post" action="${path}/invitations/${invitation.invitationId}/resend" class="inline">${csrf(view.csrfToken)}
                  <button type="submit" class="secondary">Resend</button></form>
                <form method="post" action="${path}/invitations/${invitation.invitationId}/revoke" class="inline">${csrf(view.csrfToken)}
                  <button type="submit" class="danger">Revoke</button></form></td></tr>`,
          )}</tbody></table>`
    }`
}

function joinRequestSection(view: OrganizationView): SafeHtml {
  const path = organizationPath(view.organizationId)
  const requests = view.joinRequests ?? []
  return html`<h2>Requests to join</h2>
    ${
      requests.length === 0
        ? html`<p class="muted" data-testid="no-join-requests">Nobody is asking to join.</p>`
        : html`<table data-testid="join-requests"><thead><tr><th>Address</th><th>Asked</th><th>Actions</th></tr></thead><tbody>
          ${requests.map(
            (request) => html`<tr data-join-request="${request.address}">
              <td data-label="Address">${request.address}</td>
              <td data-label="Asked">${readableTime(request.createdAt, view.now)}</td>
              <td data-label="Actions">
                <form method="post" action="${path}/join-requests/${request.requestId}/approve" class="inline">${csrf(view.csrfToken)}
                  <button type="submit">Approve</button></form>
                <form method="post" action="${path}/join-requests/${request.requestId}/decline" class="inline">${csrf(view.csrfToken)}
                  <button type="submit" class="danger">Decline</button></form></td></tr>`,
          )}</tbody></table>`
    }
    <p class="muted">People with a verified address at a domain of this organization in suggestion mode ask
      here; an approval makes them ${view.roles.roles.at(-1)?.name ?? 'members'}.</p>`
}

/**
 * `/organizations/:org`: members (role, remove, leave), invite, pending invitations (resend, revoke),
 * requests to join (approve, decline).
 */
export function organizationPage(view: OrganizationView): SafeHtml {
  const canManage = view.held.includes(OrganizationPermissions.manageMembers)
  const canInvite = view.held.includes(OrganizationPermissions.invite)
  return html`${flashNotice(view.flash)}
    <p class="lead">You are <span class="badge" data-testid="my-role">${view.held[0] ?? 'member'}</span> of
      ${view.name}. <a href="/tenants/${view.organizationId}">Open its tenant pages</a>.</p>
    <h2>Members</h2>
    <table data-testid="members"><thead><tr><th>Member</th><th>Role</th><th>Joined</th><th>Actions</th></tr></thead><tbody>
      ${view.members.map((member) => memberRow(view, member, canManage))}
    </tbody></table>
    <p class="muted">Roles go owner, admin, billing, viewer: you grant, and act on, roles at or below your own;
      the last owner can't leave, be demoted or be removed.</p>
    ${canInvite ? invitationSection(view) : html`<p class="muted" data-testid="cannot-invite">Your role does not invite.</p>`}
    ${canInvite ? joinRequestSection(view) : ''}
    ${canManage ? html`<p><a href="${organizationPath(view.organizationId)}/domains">Domains</a> <span class="muted">verified by a DNS TXT record</span></p>` : ''}
    <p><a href="${ORGANIZATIONS_PATH}">All your organizations</a></p>`
}
