import { ApiKeyError, type IssuedApiKey } from '@portcullis/core/api-keys'
import type { CredentialRestrictions } from '@portcullis/core/authentication'
import { required } from '@portcullis/core/policy'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { Response } from 'express'
import { formBody } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, type Viewer, viewerFor } from '../layout/layout.js'
import { issuedKeyNotice, keysPage, LIFETIME_CHOICES, OVERLAP_CHOICES } from './api-key-pages.js'
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

  const render = async (response: Response, who: Viewer, notice?: SafeHtml, status = 200) => {
    const user = context.directory.user(who.accountId)
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

  /** The key, if it exists and belongs to the viewer (as a user: the principal the listing shows). */
  const owned = async (keyId: string, who: Viewer) => {
    const record = await store.get(keyId)
    if (record === undefined || record.ownerId !== who.accountId || record.ownerKind !== 'user')
      throw notFound()
    return record
  }

  const shown = (issued: IssuedApiKey, what: string) => issuedKeyNotice(issued, context.publicOrigin, what)

  router.get('/keys', auth, async (request, response) => {
    const who = await viewer(request)
    const revoked = typeof request.query.revoked === 'string' ? request.query.revoked : undefined
    await render(
      response,
      who,
      revoked === undefined
        ? undefined
        : html`<p class="notice" role="status">Key <code>${revoked}</code> is revoked.</p>`,
    )
  })

  router.post('/keys', auth, form, async (request, response) => {
    const who = await viewer(request)
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
    })
    await render(response, who, shown(issued, 'Your new key'), 201)
  })

  router.post('/keys/:keyId/rotate', auth, form, async (request, response) => {
    const who = await viewer(request)
    const keyId = String(request.params.keyId)
    await owned(keyId, who)
    const requested = Number(field((request.body ?? {}) as Body, 'overlap'))
    const overlapSeconds = OVERLAP_CHOICES.find((choice) => choice.seconds === requested)?.seconds ?? 0
    let replacement: IssuedApiKey
    try {
      replacement = await service.rotate(keyId, { overlapSeconds })
    } catch (error) {
      if (error instanceof ApiKeyError && error.code === 'api_key.not_active') {
        await render(
          response,
          who,
          html`<p class="notice error" role="alert">That key is no longer active.</p>`,
          409,
        )
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
    })
    await render(response, who, shown(replacement, `Replacement for ${keyId}`))
  })

  router.post('/keys/:keyId/revoke', auth, async (request, response) => {
    const who = await viewer(request)
    const keyId = String(request.params.keyId)
    await owned(keyId, who)
    await service.revoke(keyId)
    context.events.record({ type: 'api_key.revoked', at: new Date(), accountId: who.accountId, keyId })
    response.redirect(303, `/keys?revoked=${encodeURIComponent(keyId)}`)
  })

  return router
}
