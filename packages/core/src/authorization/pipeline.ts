import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import type { GuardContext } from './context.js'
import { denied, GRANTED, type Guard, type GuardDecision } from './guard.js'
import type { StepUpGuard, StepUpVerdict, StepUpVerifier } from './step-up.js'

/** Anything a route may list in `guards`. */
export type RouteGuard = Guard | StepUpGuard

const INVALID = 'authorization.invalid_composition'
// A step-up credential travels as one header value: printable ASCII, no spaces, bounded.
const STEP_UP_TOKEN = /^[\u0021-\u007e]{1,512}$/

/** The compiled guards of one route. */
export interface GuardPipeline {
  readonly guards: readonly Guard[]
  readonly stepUp: StepUpGuard | undefined
  /** Path parameters read by the guards. */
  readonly parameters: readonly string[]
  /**
   * Runs every synchronous guard in order (first denial wins); then, only if they all granted, consumes
   * the step-up credential once. Synchronous when the route has no step-up guard.
   */
  authorize(context: GuardContext, stepUpToken?: string): GuardDecision | Promise<GuardDecision>
}

/** The step-up denial, carrying the guard's RFC 9470 hints when it has them. */
function stepUpRequired(guard: StepUpGuard, code: string): GuardDecision {
  const decision = denied('step-up-required', code, [guard.key])
  return guard.challenge === undefined || decision.granted
    ? decision
    : { ...decision, challenge: guard.challenge }
}

function fromVerdict(verdict: StepUpVerdict, guard: StepUpGuard): GuardDecision {
  const key = guard.key
  if (verdict.kind === 'consumed') return GRANTED
  if (verdict.kind === 'unavailable') {
    const decision = denied('unavailable', 'authorization.step_up_unavailable', [key])
    const retryAfterSeconds = verdict.retryAfterSeconds
    return retryAfterSeconds === undefined || decision.granted ? decision : { ...decision, retryAfterSeconds }
  }
  return stepUpRequired(guard, 'authorization.step_up_rejected')
}

async function consume(
  verifier: StepUpVerifier,
  guard: StepUpGuard,
  context: GuardContext,
  token: string,
): Promise<GuardDecision> {
  const principal = context.principal
  if (principal === null)
    return denied('unauthenticated', 'authorization.authentication_required', [guard.key])
  try {
    const verdict = await verifier.consume({
      token,
      purpose: guard.purpose,
      accountId: principal.id,
      principal,
      evidence: context.evidence,
    })
    return fromVerdict(verdict, guard)
  } catch {
    return denied('unavailable', 'authorization.step_up_unavailable', [guard.key])
  }
}

/** Options of `compileGuards`. */
export interface CompileGuardsOptions {
  readonly stepUpVerifier?: StepUpVerifier | undefined
}

const COMPILE_GUARDS_OPTIONS: OptionsShape<CompileGuardsOptions> = {
  stepUpVerifier: { kind: 'object' },
}

/**
 * Validates a route's guard list at startup: guards and at most one `requiresStepUp`, no duplicates, and
 * a verifier configured when step-up is used.
 */
export function compileGuards(
  guards: readonly RouteGuard[],
  options: CompileGuardsOptions = {},
): GuardPipeline {
  readOptions(options, 'compileGuards', COMPILE_GUARDS_OPTIONS)
  if (!Array.isArray(guards)) throw new ConfigurationError(INVALID, 'route guards must be a list')
  const sync: Guard[] = []
  let stepUp: StepUpGuard | undefined
  const keys = new Set<string>()
  for (const item of guards as readonly unknown[]) {
    const kind = (item as { kind?: unknown } | null)?.kind
    if (kind !== 'guard' && kind !== 'step-up')
      throw new ConfigurationError(INVALID, 'route guards must be guards')
    const typed = item as RouteGuard
    if (keys.has(typed.key)) throw new ConfigurationError(INVALID, `route lists ${typed.key} twice`)
    keys.add(typed.key)
    if (typed.kind === 'guard') sync.push(typed)
    else if (stepUp !== undefined)
      throw new ConfigurationError(INVALID, 'a route can require one step-up purpose')
    else stepUp = typed
  }
  const verifier = options.stepUpVerifier
  if (stepUp !== undefined && verifier === undefined) {
    throw new ConfigurationError(
      'authorization.step_up_not_configured',
      'requiresStepUp needs a step-up verifier',
    )
  }
  const checkSync = (context: GuardContext): GuardDecision => {
    for (const guard of sync) {
      const decision = guard.check(context)
      if (!decision.granted) return decision
    }
    return GRANTED
  }
  const stepUpGuard = stepUp
  return Object.freeze({
    guards: Object.freeze(sync),
    stepUp,
    parameters: Object.freeze([...new Set(sync.flatMap((guard) => guard.parameters))]),
    authorize(context: GuardContext, stepUpToken?: string) {
      const decision = checkSync(context)
      if (!decision.granted || stepUpGuard === undefined || verifier === undefined) return decision
      if (context.principal === null) {
        return denied('unauthenticated', 'authorization.authentication_required', [stepUpGuard.key])
      }
      if (stepUpToken === undefined || !STEP_UP_TOKEN.test(stepUpToken)) {
        return stepUpRequired(stepUpGuard, 'authorization.step_up_missing')
      }
      return consume(verifier, stepUpGuard, context, stepUpToken)
    },
  })
}
