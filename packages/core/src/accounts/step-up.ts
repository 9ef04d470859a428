import { StepUpError, StepUpErrorCodes } from '../step-up/errors.js'
import type { StepUpService } from '../step-up/service.js'

/**
 * Consumes a one-use step-up credential of `purpose` bound to the caller's account, session and epoch,
 * or throws: `step-up.required` (401) for a missing, unknown, expired, replayed or foreign one (a genuine
 * one presented with the wrong binding is burned), `step-up.unavailable` (503) when the store failed.
 */
export async function consumeStepUp(
  stepUp: StepUpService,
  session: { readonly accountId: string; readonly securityEpoch: number; readonly sessionHandle: string },
  token: string,
  purpose: string,
): Promise<void> {
  const result = await stepUp.consume({
    token: typeof token === 'string' ? token : '',
    accountId: session.accountId,
    purpose,
    securityEpoch: session.securityEpoch,
    sessionBinding: session.sessionHandle,
  })
  if (result.kind === 'consumed') return
  if (result.kind === 'unavailable') {
    throw new StepUpError(StepUpErrorCodes.unavailable, 'the step-up store is unavailable')
  }
  throw new StepUpError(StepUpErrorCodes.required, `a step-up credential for ${purpose} is required`)
}
