import { ApiKeyError, type IssuedApiKey } from '@portcullis/core/api-keys'
import type { CredentialRestrictions } from '@portcullis/core/authentication'
import { ImpersonationError, ImpersonationRefusedActs } from '@portcullis/core/impersonation'
import { required } from '@portcullis/core/policy'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { Response } from 'express'
import { formBody } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { IMPERSONATION_REFUSED_WORDS, refuseDuringImpersonation } from '../impersonation/refused-acts.js'
import { type Flash, pageFlash } from '../layout/flash.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, type Viewer, viewerFor } from '../layout/layout.js'
import { actedBy } from '../security-events/event-log.js'
import { issuedKeyNotice, keysPage, LIFETIME_CHOICES, OVERLAP_CHOICES, revokePage } from './api-key-pages.js'
import { listOwnedKeys } from './owned-keys.js'

type Body = Record<string, unknown>
const notFound = () => new HttpProblem({ status: 404, code: 'api_key.not_found', detail: 'No such key' })
const field = (body: Body, name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '')

/**
 * The API-key page: keys belong to the signed-in user (`ownerKind: 'user'`), so a key authenticates as
 * that user, narrowed by its restrictions. Issue, rotate and revoke go through `ApiKeyService` over the
 * Postgres store; a key id that is not the viewer's answers 404 (no oracle for other owners' keys).
 */
export function apiKeyRoutes(security: Pick<Security, 'router'>, context: ReferenceContext): SecureRouter {
  const router = security.router()
  const auth = { auth: required(SESSION_MECHANISM) }
  const form = formBody()
  const { service, store, directory } = context.apiKeys

  const viewer = async (request: SecuredRequest): Promise<Viewer> => {
    const found = await viewerFor(request.security, context.directory)
    if (found === undefined)
      throw new HttpProblem({ status: 403, code: 'keys.users_only', detail: 'Users only' })
    return found
  }

  const flash = pageFlash(context)

  const render = async (response: Response, who: Viewer, notice?: SafeHtml, status = 200) => {
    const user = context.directory.user(who.accountId)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        title: 'API keys',
        area: 'keys',
        viewer: who,
        body: keysPage({
          keys: await listOwnedKeys(directory, who.accountId),
          tenants: Object.keys(user?.tenants ?? {}),
          ...(notice === undefined ? {} : { notice }),
        }),
      },
      status,
    )
  }

  /** After every form: what happened travels to `GET /keys` (a new key shown there once). */
  const done = (response: Response, who: Viewer, value: Flash) => {
    flash.set(response, who.accountId, value)
    response.redirect(303, '/keys')
  }

  const noticeOf = (value: Flash | undefined): SafeHtml | undefined => {
    if (value === undefined) return undefined
    const key = value.revealKind === 'api-key' ? value.reveal?.[0] : undefined
    if (key !== undefined)
      return issuedKeyNotice(key, context.publicOrigin, value.revealTitle ?? 'Your new key')
    if (value.error !== undefined) return html`<p class="notice error" role="alert">${value.error}</p>`
    return value.notice === undefined
      ? undefined
      : html`<p class="notice success" role="status">${value.notice}</p>`
  }

  /**
   * False, with the keys page again (403) saying why, when the request is an impersonation: a key made
   * or replaced now would outlast it. The security log has the refusal, naming the administrator.
   */
  const permitted = async (request: SecuredRequest, response: Response, who: Viewer, act: string) => {
    try {
      refuseDuringImpersonation(context.impersonations, request, act)
      return true
    } catch (error) {
      if (!(error instanceof ImpersonationError)) throw error
      const words = html`<p class="notice error" role="alert" data-testid="impersonation-refused">${IMPERSONATION_REFUSED_WORDS}</p>`
      await render(response, who, words, 403)
      return false
    }
  }

  /** The key, if it exists and belongs to the viewer (as a user: the principal the listing shows). */
  const owned = async (keyId: string, who: Viewer) => {
    const record = await store.get(keyId)
    if (record === undefined || record.ownerId !== who.accountId || record.ownerKind !== 'user')
      throw notFound()
    return record
  }

  router.get('/keys', auth, async (request, response) => {
    const who = await viewer(request)
    await render(response, who, noticeOf(flash.take(request, response, who.accountId)))
  })

  router.post('/keys', auth, form, async (request, response) => {
    const who = await viewer(request)
    if (!(await permitted(request, response, who, ImpersonationRefusedActs.apiKeyIssue))) return
    const body = (request.body ?? {}) as Body
    const user = context.directory.user(who.accountId)
    const tenant = field(body, 'tenant')
    const restrictions: CredentialRestrictions = {
      ...(field(body, 'scopes') === 'reports:read' ? { scopes: ['reports:read'] } : {}),
      ...(tenant !== '' && user?.tenants[tenant] !== undefined
        ? { tenants: { [tenant]: user.tenants[tenant] } }
        : {}),
    }
    const days = Number(field(body, 'days'))
    const lifetime = LIFETIME_CHOICES.find((choice) => choice.days === days)?.days ?? 30
    const issued = await service.issue({
      ownerId: who.accountId,
      ownerKind: 'user',
      restrictions,
      label: field(body, 'label').trim().slice(0, 60) || 'unnamed key',
      ...(lifetime === 0 ? {} : { expiresAt: new Date(Date.now() + lifetime * 86_400_000) }),
    })
    context.events.record({
      type: 'api_key.issued',
      at: new Date(),
      accountId: who.accountId,
      keyId: issued.keyId,
      ...actedBy(request.security.principal),
    })
    done(response, who, { reveal: [issued.value], revealKind: 'api-key', revealTitle: 'Your new key' })
  })

  router.post('/keys/:keyId/rotate', auth, form, async (request, response) => {
    const who = await viewer(request)
    const keyId = String(request.params.keyId)
    await owned(keyId, who)
    if (!(await permitted(request, response, who, ImpersonationRefusedActs.apiKeyRotate))) return
    const requested = Number(field((request.body ?? {}) as Body, 'overlap'))
    const overlapSeconds = OVERLAP_CHOICES.find((choice) => choice.seconds === requested)?.seconds ?? 0
    let replacement: IssuedApiKey
    try {
      replacement = await service.rotate(keyId, { overlapSeconds })
    } catch (error) {
      if (error instanceof ApiKeyError && error.code === 'api_key.not_active') {
        done(response, who, { error: 'That key is no longer active, so it cannot be replaced.' })
        return
      }
      throw error
    }
    context.events.record({
      type: 'api_key.rotated',
      at: new Date(),
      accountId: who.accountId,
      keyId,
      replacementKeyId: replacement.keyId,
      overlapSeconds,
      ...actedBy(request.security.principal),
    })
    const overlap = OVERLAP_CHOICES.find((choice) => choice.seconds === overlapSeconds)
    done(response, who, {
      reveal: [replacement.value],
      revealKind: 'api-key',
      revealTitle:
        overlapSeconds === 0
          ? `The replacement for ${keyId} (the old key no longer works)`
          : `The replacement for ${keyId} (the old key keeps working for ${overlap?.label ?? 'a while'})`,
    })
  })

  // Revoking: a confirmation page first (the key named, what stops working), then the form.
  router.get('/keys/:keyId/revoke', auth, async (request, response) => {
    const who = await viewer(request)
    const keyId = String(request.params.keyId)
    await owned(keyId, who)
    const key = (await listOwnedKeys(directory, who.accountId)).find((candidate) => candidate.keyId === keyId)
    if (key === undefined || (key.status !== 'active' && key.status !== 'overlap'))
      return done(response, who, { error: 'That key is already revoked or expired.' })
    response.setHeader('Cache-Control', 'no-store')
    sendPage(response, { title: 'Revoke the key?', area: 'keys', viewer: who, body: revokePage(key) })
  })

  router.post('/keys/:keyId/revoke', auth, async (request, response) => {
    const who = await viewer(request)
    const keyId = String(request.params.keyId)
    await owned(keyId, who)
    await service.revoke(keyId)
    context.events.record({
      type: 'api_key.revoked',
      at: new Date(),
      accountId: who.accountId,
      keyId,
      ...actedBy(request.security.principal),
    })
    done(response, who, { notice: `Key ${keyId} is revoked: programs using it are refused.` })
  })

  return router
}
