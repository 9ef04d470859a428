import { isPortcullisError } from '@portcullis/core/errors'
import { type ProblemInit, problemFor } from '../problem/index.js'

/** Codes whose message names a rule (never a value) and is shown to the client as the detail. */
const RULE_CODES = new Set(['local.invalid_username', 'local.invalid_password'])

/** The problem for an error of a local-account route: client-safe details where the error has one. */
export function localProblem(error: unknown): ProblemInit {
  const problem = problemFor(error)
  if (!isPortcullisError(error)) return problem
  const detail = (error as { detail?: unknown }).detail
  if (typeof detail === 'string') return { ...problem, detail }
  if (RULE_CODES.has(error.code)) return { ...problem, detail: error.message }
  return problem
}
