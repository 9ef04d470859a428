import type { LocalSession } from '@portcullis/core/oidc'
import type { StepUpService } from '@portcullis/core/step-up'
import type { HttpExchange } from '../exchange/exchange.js'
import { stepUpTokenOf } from '../oauth/http.js'
import type { StepUpTransport } from '../oauth/options.js'
import { HttpProblem, problems } from '../problem/problem.js'

/**
 * Consumes the caller's one-use step-up credential of `purpose` (the step-up header, or else the
 * purpose's step-up cookie, deleted at once whatever the answer), bound to the caller's account, security
 * epoch and session. Throws 401 `step-up.required` when there is none or it does not match, 503
 * `step-up.unavailable` when the store failed.
 */
export async function consumeStepUp(
  exchange: HttpExchange,
  transport: StepUpTransport,
  stepUp: StepUpService,
  session: LocalSession,
  purpose: string,
): Promise<void> {
  const consumed = await stepUp.consume({
    token: stepUpTokenOf(exchange, transport, purpose),
    accountId: session.accountId,
    purpose,
    securityEpoch: session.securityEpoch,
    sessionBinding: session.sessionHandle,
  })
  if (consumed.kind === 'unavailable') throw new HttpProblem(problems.stepUpUnavailable)
  if (consumed.kind !== 'consumed') throw new HttpProblem(problems.stepUpRequired)
}
