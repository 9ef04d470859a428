import type { IncomingMessage } from 'node:http'
import { type OptionsShape, PortcullisError, readOptions } from '@portcullis/core/errors'
import type { LocalSession } from '@portcullis/core/oidc'
import type { StepUpService } from '@portcullis/core/step-up'
import type { InteractionReauthentication } from './options.js'

export interface StepUpReauthenticationOptions {
  /** The step-up service the application's reauthentication pages issue credentials with. */
  readonly service: Pick<StepUpService, 'consume'>
  /** The application's reauthentication page for `purpose` `oauth-authorize`, returning to `returnTo`. */
  url(returnTo: string): string
  /** The step-up token the request presents for `purpose` (the application's step-up cookie), if any. */
  tokenOf(req: IncomingMessage, purpose: string): string | undefined
  /** The request's local session (its epoch and handle bind the credential), e.g. `currentLocalSession`. */
  session(req: IncomingMessage): Promise<LocalSession | undefined>
}

const SHAPE: OptionsShape<StepUpReauthenticationOptions> = {
  service: { required: true, kind: 'object', code: 'authorization_server.interactions_options' },
  url: { required: true, kind: 'function', code: 'authorization_server.interactions_options' },
  tokenOf: { required: true, kind: 'function', code: 'authorization_server.interactions_options' },
  session: { required: true, kind: 'function', code: 'authorization_server.interactions_options' },
}

/** The step-up store could not answer: the interaction answers 503. */
export class ReauthenticationUnavailableError extends PortcullisError {
  constructor(reason: string) {
    super(
      'authorization_server.reauthentication_unavailable',
      'unavailable',
      `reauthentication unavailable: ${reason}`,
    )
  }
}

/**
 * The interaction's reauthentication over the existing step-up machinery: a one-use credential of
 * purpose `oauth-authorize`, bound to the account, its security epoch and the session, consumed
 * (burned) on the interaction. A credential is accepted once, for its own account and session only.
 */
export function stepUpReauthentication(options: StepUpReauthenticationOptions): InteractionReauthentication {
  readOptions(options, 'stepUpReauthentication', SHAPE)
  return {
    url: (returnTo) => options.url(returnTo),
    consume: async (req, { purpose, accountId }) => {
      const token = options.tokenOf(req, purpose)
      if (token === undefined || token === '') return undefined
      const session = await options.session(req)
      if (session === undefined || session.accountId !== accountId) return undefined
      const result = await options.service.consume({
        token,
        purpose,
        accountId,
        securityEpoch: session.securityEpoch,
        sessionBinding: session.sessionHandle,
      })
      if (result.kind === 'unavailable') throw new ReauthenticationUnavailableError(result.reason)
      return result.kind === 'consumed' ? { authenticatedAt: result.grant.authenticatedAt } : undefined
    },
  }
}
