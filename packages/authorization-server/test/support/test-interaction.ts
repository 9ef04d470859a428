import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import type { InteractionHandler } from '../../src/index.js'

/**
 * Signs in one fixed account and grants every requested scope for the requested resource(s), on the
 * first request of each interaction. Test support only: the real pages live in src/interactions/.
 */
export class TestInteraction implements InteractionHandler {
  readonly seen: string[] = []
  constructor(readonly accountId: string) {}

  async handle(req: IncomingMessage, res: ServerResponse, provider: Provider): Promise<void> {
    const details = await provider.interactionDetails(req, res)
    this.seen.push(details.prompt.name)
    const { params } = details
    const clientId = String(params.client_id)
    const grant =
      (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId: this.accountId, clientId })
    const resources =
      params.resource === undefined ? [] : ([] as unknown[]).concat(params.resource).map(String)
    const scope = typeof params.scope === 'string' ? params.scope : ''
    for (const resource of resources) grant.addResourceScope(resource, scope)
    // The resources' scope names are the server's scope values too: granted as such, as the real pages do.
    if (scope !== '') grant.addOIDCScope(scope)
    const grantId = await grant.save()
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: this.accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    )
  }
}
