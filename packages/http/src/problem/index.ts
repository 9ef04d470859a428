// RFC 9457 problem details: the error every adapter answers with, rendered the same way everywhere.
export type { ProblemBody, ProblemInit, ProblemResponse } from './problem.js'
export { HttpProblem, PROBLEM_CONTENT_TYPE, problemBody, problems, renderProblem } from './problem.js'
export { problemFor } from './problem-for.js'
