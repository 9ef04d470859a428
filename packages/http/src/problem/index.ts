// RFC 9457 problem details: the error every adapter answers with, rendered the same way everywhere.
export type { ProblemBody, ProblemInit, ProblemResponse } from './problem.js'
export {
  DEFAULT_RATE_LIMIT_RETRY_SECONDS,
  DEFAULT_UNAVAILABLE_RETRY_SECONDS,
  HttpProblem,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemHeaders,
  problems,
  renderProblem,
  retryAfterFor,
} from './problem.js'
export { problemFor } from './problem-for.js'
