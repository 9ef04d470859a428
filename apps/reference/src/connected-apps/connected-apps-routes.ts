import { required } from '@portcullis/core/policy'
import { HttpProblem, type SecuredRequest, type SecureRouter, type Security } from '@portcullis/express'
import type { Response } from 'express'
import { formBody } from '../accounts/forms.js'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, type Viewer, viewerFor } from '../layout/layout.js'
import { MCP_PATH } from '../mcp/mcp-endpoint.js'
import { actedBy } from '../security-events/event-log.js'
import { type ConnectedAppView, connectedAppsPage } from './connected-apps-page.js'

/** What the page needs of the authorization server. */
export interface ConnectedApps {
  connectedApps(accountId: string): Promise<readonly ConnectedAppView[]>
  /** False when the account has no such grant. */
  disconnect(accountId: string, grantId: string): Promise<boolean>
}

export const CONNECTED_APPS_PATH = '/connected-apps'

/** `/connected-apps`: the viewer's grants, and disconnecting one (404 for a grant that is not theirs). */
export function connectedAppsRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  apps: ConnectedApps,
): SecureRouter {
  const router = security.router()
  const auth = { auth: required(SESSION_MECHANISM) }

  const viewer = async (request: SecuredRequest): Promise<Viewer> => {
    const found = await viewerFor(request.security, context.directory)
    if (found === undefined)
      throw new HttpProblem({ status: 403, code: 'apps.users_only', detail: 'Users only' })
    return found
  }

  const render = async (response: Response, who: Viewer, notice?: SafeHtml) => {
    sendPage(response, {
      title: 'Connected apps',
      area: 'apps',
      viewer: who,
      body: connectedAppsPage({
        apps: await apps.connectedApps(who.accountId),
        mcpUrl: `${context.publicOrigin}${MCP_PATH}`,
        ...(notice === undefined ? {} : { notice }),
      }),
    })
  }

  router.get(CONNECTED_APPS_PATH, auth, async (request, response) => {
    const who = await viewer(request)
    const disconnected = request.query.disconnected === '1'
    await render(
      response,
      who,
      disconnected ? html`<p class="notice" role="status">The app is disconnected.</p>` : undefined,
    )
  })

  router.post(`${CONNECTED_APPS_PATH}/:grantId/disconnect`, auth, formBody(), async (request, response) => {
    const who = await viewer(request)
    const grantId = String(request.params.grantId)
    if (!(await apps.disconnect(who.accountId, grantId))) {
      throw new HttpProblem({ status: 404, code: 'apps.not_found', detail: 'No such connected app' })
    }
    context.events.record({
      type: 'oauth.client_disconnected',
      at: new Date(),
      accountId: who.accountId,
      grantId,
      ...actedBy(request.security.principal),
    })
    response.redirect(303, `${CONNECTED_APPS_PATH}?disconnected=1`)
  })
  return router
}
