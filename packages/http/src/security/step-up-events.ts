import type { SecurityContext } from '@portcullis/core/authorization'
import { emitSecurityEvent, SESSION_HANDLE_ATTRIBUTE } from '@portcullis/core/local-accounts'
import type { StepUpConfig } from './config.js'

/** `step_up.consumed` for a credential a route guard consumed, when a sink is configured. */
export function stepUpConsumedEvents(
  config: StepUpConfig | undefined,
): ((context: SecurityContext, purpose: string) => void) | undefined {
  const sink = config?.events
  if (sink === undefined) return undefined
  return (context, purpose) => {
    const principal = context.principal
    if (principal === null) return
    let sessionHandle: string | undefined
    for (const item of context.evidence) {
      const handle = item.attributes?.[SESSION_HANDLE_ATTRIBUTE]
      if (typeof handle === 'string') sessionHandle = handle
    }
    emitSecurityEvent(
      sink,
      {
        type: 'step_up.consumed',
        at: new Date(),
        accountId: principal.id,
        purpose,
        ...(sessionHandle === undefined ? {} : { sessionHandle }),
      },
      config?.onEventSinkError,
    )
  }
}
