/**
 * Runner-agnostic conformance suites. A suite is a list of cases; each case gets a fresh context from
 * the suite's factory and throws a `ConformanceViolation` naming the invariant it found broken.
 */
export interface ConformanceCase<Context> {
  /** Stable identifier, e.g. `protector.aad-binding`. */
  readonly id: string
  /** One sentence stating the invariant. */
  readonly title: string
  run(context: Context): Promise<void> | void
}

export interface ConformanceSuite<Context> {
  readonly name: string
  readonly cases: readonly ConformanceCase<Context>[]
  /** Builds a fresh context for one case; `dispose` runs after it whatever the outcome. */
  createContext(): Promise<Context> | Context
  disposeContext?(context: Context): Promise<void> | void
}

/** Thrown by a case when the implementation under test breaks the named invariant. */
export class ConformanceViolation extends Error {
  readonly caseId: string
  readonly invariant: string

  constructor(caseId: string, invariant: string, detail?: string) {
    super(`[${caseId}] ${invariant}${detail ? `: ${detail}` : ''}`)
    this.name = 'ConformanceViolation'
    this.caseId = caseId
    this.invariant = invariant
  }
}

/** An assertion bound to one case: `check(condition, detail?)` throws the case's violation. */
export type Check = (condition: unknown, detail?: string) => void

export function checkFor(caseId: string, invariant: string): Check {
  return (condition, detail) => {
    if (!condition) throw new ConformanceViolation(caseId, invariant, detail)
  }
}

/** Defines a case whose `check` already names its invariant. */
export function conformanceCase<Context>(
  id: string,
  title: string,
  run: (context: Context, check: Check) => Promise<void> | void,
): ConformanceCase<Context> {
  const check = checkFor(id, title)
  return { id, title, run: (context) => run(context, check) }
}

export interface CaseResult {
  readonly id: string
  readonly title: string
  readonly passed: boolean
  readonly error?: unknown
}

/** Runs one case with a fresh context; the outcome is returned, never thrown. */
export async function runCase<Context>(
  suite: ConformanceSuite<Context>,
  testCase: ConformanceCase<Context>,
): Promise<CaseResult> {
  let context: Context | undefined
  try {
    context = await suite.createContext()
    await testCase.run(context)
    return { id: testCase.id, title: testCase.title, passed: true }
  } catch (error) {
    return { id: testCase.id, title: testCase.title, passed: false, error }
  } finally {
    if (context !== undefined) await suite.disposeContext?.(context)
  }
}

/** Runs every case of a suite in order; useful for scripts and self-tests. */
export async function runSuite<Context>(suite: ConformanceSuite<Context>): Promise<CaseResult[]> {
  const results: CaseResult[] = []
  for (const testCase of suite.cases) results.push(await runCase(suite, testCase))
  return results
}

/** Runs a whole suite and throws an `AggregateError` listing every violated invariant. */
export async function assertSuite<Context>(suite: ConformanceSuite<Context>): Promise<void> {
  const failures = (await runSuite(suite)).filter((result) => !result.passed)
  if (failures.length > 0) {
    throw new AggregateError(
      failures.map((failure) => failure.error),
      `${suite.name}: ${failures.length} invariant(s) violated: ${failures.map((failure) => failure.id).join(', ')}`,
    )
  }
}

type Register = (name: string, body: () => void | Promise<void>) => unknown

/** Registers one test per case with any `describe`/`it` pair (vitest, node:test, jest, mocha). */
export function registerSuite<Context>(
  suite: ConformanceSuite<Context>,
  describe: Register,
  it: Register,
): void {
  describe(suite.name, () => {
    for (const testCase of suite.cases) {
      it(`${testCase.id}: ${testCase.title}`, async () => {
        const context = await suite.createContext()
        try {
          await testCase.run(context)
        } finally {
          await suite.disposeContext?.(context)
        }
      })
    }
  })
}
