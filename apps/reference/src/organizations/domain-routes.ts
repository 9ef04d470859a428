import { requiresTenantRole } from '@portcullis/core/authorization'
import { isPortcullisError } from '@portcullis/core/errors'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import {
  DOMAIN_ENROLLMENT_MODES,
  type DomainEnrollmentMode,
  type OrganizationDomainClaim,
  OrganizationDomainErrorCodes,
} from '@portcullis/core/organization-domains'
import { required } from '@portcullis/core/policy'
import type { SecuredRequest, SecureRouter, Security } from '@portcullis/express'
import type { Response } from 'express'
import { anonymousForms } from '../accounts/anonymous-forms.js'
import { field, formBody, retryHint } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import { accountKit, fieldError, flashNotice } from '../accounts/page-kit.js'
import type { ReferenceContext } from '../app-context.js'
import type { Flash } from '../layout/flash.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import { organizationPath } from './organization-pages.js'

const WORDS: Readonly<Record<string, string>> = {
  [OrganizationDomainErrorCodes.invalidInput]: 'Type a domain name, such as example.com.',
  [OrganizationDomainErrorCodes.invalidDomain]: 'That is not a domain an organization can own.',
  [OrganizationDomainErrorCodes.freeMail]: 'That is a free-mail domain: no organization can claim it.',
  [OrganizationDomainErrorCodes.taken]: 'Another organization holds that domain, verified.',
  [OrganizationDomainErrorCodes.limitReached]: 'This organization claims as many domains as it may.',
  [OrganizationDomainErrorCodes.notFound]: 'No such domain claim.',
  [OrganizationDomainErrorCodes.recordMissing]:
    'The TXT record is not there yet (DNS changes can take a while): publish it, then verify again.',
  [OrganizationDomainErrorCodes.recordMismatch]:
    "The TXT record there carries another claim's token, not this one's: publish this claim's record.",
}

/** What each enrollment mode does, in the words of the domains page. */
const MODES: Readonly<Record<DomainEnrollmentMode, string>> = {
  'manual-invitation': 'Manual: members are invited one by one',
  'automatic-invitation': 'Automatic invitation: a verified address here is mailed an invitation',
  'automatic-suggestion': 'Suggestion: people with a verified address here see the organization',
}

function enrollmentForm(path: string, claim: OrganizationDomainClaim['claim'], csrf: SafeHtml): SafeHtml {
  return html`<p>Joining: <span data-testid="enrollment">${MODES[claim.enrollment]}</span>.</p>
    <form method="post" action="${path}/${encodeURIComponent(claim.id)}/enrollment" class="stack" aria-label="Enrollment of ${claim.domain}">${csrf}
      <label>Enrollment <select name="enrollment">${DOMAIN_ENROLLMENT_MODES.map(
        (mode) =>
          html`<option value="${mode}"${claim.enrollment === mode ? html` selected` : html``}>${MODES[mode]}</option>`,
      )}</select></label>
      <div><button type="submit">Change enrollment</button></div></form>
    <p class="muted">Nobody becomes a member by an address alone: an invitation is still accepted by the person.</p>`
}

function domainFlash(error: unknown, field?: string): Flash {
  if (!isPortcullisError(error)) throw error
  const words = WORDS[error.code]
  // Anything else (the DNS servers did not answer: 503 with Retry-After) goes to the error pages.
  if (words === undefined) throw error
  return { error: words, ...(field === undefined ? {} : { field }) }
}

function domainsPage(
  organizationId: string,
  claims: readonly OrganizationDomainClaim[],
  csrfToken: string,
  flash: Flash | undefined,
): SafeHtml {
  const path = `${organizationPath(organizationId)}/domains`
  const domain = fieldError(flash, 'domain')
  const csrf = html`<input type="hidden" name="csrf_token" value="${csrfToken}">`
  return html`${flashNotice(flash)}
    <p class="lead">An organization proves it owns a domain with a DNS TXT record. Free-mail domains are
      refused; an address at a domain never makes anyone a member by itself.</p>
    ${
      claims.length === 0
        ? html`<p class="muted" data-testid="no-domains">No domain is claimed.</p>`
        : html`<ul class="plain" data-testid="domains">${claims.map(
            ({ claim, recordName, recordValue }) => html`<li class="card" data-domain="${claim.domain}">
              <h2>${claim.domain} <span class="badge ${claim.verifiedAt === null ? '' : 'active'}" data-testid="domain-status">${claim.verifiedAt === null ? 'not verified' : 'verified'}</span></h2>
              ${
                claim.verifiedAt === null
                  ? html`<p>Publish this TXT record, then verify:</p>
                    <dl class="facts"><dt>Name</dt><dd><code data-testid="record-name">${recordName}</code></dd>
                      <dt>Value</dt><dd><code data-testid="record-value">${recordValue}</code></dd></dl>
                    <form method="post" action="${path}/${encodeURIComponent(claim.id)}/verify">${csrf}
                      <button type="submit">Verify</button></form>`
                  : html`<p class="muted">Keep the record published: it is what proves the domain is yours.</p>
                    ${enrollmentForm(path, claim, csrf)}`
              }</li>`,
          )}</ul>`
    }
    <form method="post" action="${path}" class="stack card" aria-label="Claim a domain">${csrf}
      <h2>Claim a domain</h2>
      ${domain.message}
      <label>Domain <input name="domain" maxlength="253" required autocomplete="off"${domain.invalid}></label>
      <div><button type="submit">Claim</button></div>
    </form>
    <p><a href="${organizationPath(organizationId)}">Back to the members</a></p>`
}

/**
 * `/organizations/:org/domains`, for owners and admins: the organization's domain claims with the TXT
 * record each needs, a claim form and the check. The claim and the check go through
 * `@portcullis/core/organization-domains` over Postgres and the app's DNS resolver.
 */
export function domainRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  options: { readonly local: LocalAccounts },
): SecureRouter {
  const router = security.router()
  const { domains } = context.organizations
  const kit = accountKit(context)
  const forms = anonymousForms(options.local)
  const form = formBody()
  const route = {
    auth: required(SESSION_MECHANISM),
    guards: [requiresTenantRole({ tenantParameter: 'org', roles: ['owner', 'admin'] })],
  }
  const pathOf = (request: SecuredRequest) => `${organizationPath(String(request.params.org))}/domains`
  const act = async (
    request: SecuredRequest,
    response: Response,
    change: () => Promise<string>,
    errorField?: string,
  ) => {
    let flash: Flash
    try {
      flash = { notice: await change() }
    } catch (error) {
      flash = domainFlash(error, errorField)
      retryHint(response, error)
    }
    kit.flash.set(response, kit.accountId(request), flash)
    response.redirect(303, pathOf(request))
  }

  router.get(`/organizations/:org/domains`, route, async (request, response) => {
    const organizationId = String(request.params.org)
    const claims = await domains.list(organizationId)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, {
      title: 'Domains',
      area: 'tenants',
      viewer: await viewerFor(request.security, context.directory),
      body: domainsPage(organizationId, claims, forms.token(request, response), kit.take(request, response)),
    })
  })

  router.post(`/organizations/:org/domains`, route, form, (request, response) =>
    act(
      request,
      response,
      async () => {
        const { claim } = await domains.claim({
          organizationId: String(request.params.org),
          domain: field(request, 'domain'),
          managerAccountId: kit.accountId(request),
        })
        return `${claim.domain} is claimed: publish its TXT record, then verify.`
      },
      'domain',
    ),
  )

  router.post(`/organizations/:org/domains/:id/verify`, route, form, (request, response) =>
    act(request, response, async () => {
      const verified = await domains.verify({
        organizationId: String(request.params.org),
        id: String(request.params.id),
      })
      return `${verified.domain} is verified.`
    }),
  )

  // The actor is the session's account (the manager in whose name automatic invitations go).
  router.post(`/organizations/:org/domains/:id/enrollment`, route, form, async (request, response) => {
    const enrollment = field(request, 'enrollment') as DomainEnrollmentMode
    if (!DOMAIN_ENROLLMENT_MODES.includes(enrollment)) {
      // A forged form: nothing changes.
      kit.flash.set(response, kit.accountId(request), { error: 'Choose one of the enrollment modes.' })
      response.redirect(303, pathOf(request))
      return
    }
    await act(request, response, async () => {
      const updated = await domains.setEnrollment({
        organizationId: String(request.params.org),
        id: String(request.params.id),
        enrollment,
        managerAccountId: kit.accountId(request),
      })
      return `Joining ${updated.domain}: ${MODES[updated.enrollment]}.`
    })
  })
  return router
}
