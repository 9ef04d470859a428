// In-process reads over Node's HTTP objects, for any framework on node:http: a synthetic GET carrying the
// caller's headers and addresses, and a response that captures instead of writing to a socket.
export type { CapturingResponse } from './capture.js'
export { CAPTURING_METHODS, capturingResponse } from './capture.js'
export { Deadlined, DeadlineQueue } from './deadlines.js'
export { resourceProblem, statusOf } from './resource-problem.js'
export { SyntheticRequest } from './synthetic-request.js'
