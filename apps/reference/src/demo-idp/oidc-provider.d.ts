// Minimal typings for the parts of oidc-provider 9 used here (the package ships none). A superset of
// packages/core/test/oidc/support/oidc-provider.d.ts, because this app's tests also run that test IdP.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  /** The Koa context as far as the IdP middleware touches it. */
  export interface ProviderContext {
    readonly path: string
    readonly method: string
    body: unknown
    status: number
    querystring: string
    readonly oidc?: {
      readonly params?: Record<string, unknown>
      readonly client?: { readonly clientId: string }
      readonly session?: { readonly accountId?: string; grantIdFor(clientId: string): string | undefined }
      readonly result?: { readonly consent?: { readonly grantId?: string } }
      readonly provider: Provider
    }
    set(header: string, value: string): void
  }

  export interface InteractionDetails {
    readonly uid: string
    readonly prompt: {
      readonly name: string
      readonly reasons?: readonly string[]
      readonly details: Record<string, unknown>
    }
    readonly params: Record<string, unknown>
    readonly session?: { readonly accountId?: string }
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }

  export interface GrantModel {
    new (init: { clientId: string; accountId: string }): GrantInstance
    find(id: string): Promise<GrantInstance | undefined>
  }

  export interface ClientInstance {
    backchannelLogout(sub: string, sid: string): Promise<void>
  }

  export interface ClientModel {
    find(id: string): Promise<ClientInstance | undefined>
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    readonly Grant: GrantModel
    readonly Client: ClientModel
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
  }

  export default Provider
}
