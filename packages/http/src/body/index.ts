// Request bodies with limits: reading a Node request stream, parsing JSON and forms, one too-large status.
export type { BodyStream } from './body.js'
export {
  LOCAL_ACCOUNTS_MAX_BODY_BYTES,
  parseRequestBody,
  readLimitedBody,
  readRequestBody,
} from './body.js'
export {
  BODY_TOO_LARGE_CODE,
  BODY_TOO_LARGE_STATUS,
  bodyTooLargeProblem,
  bodyTooLargeResponse,
  isBodyTooLargeError,
  limitOf,
  withBodyLimitResponses,
} from './body-limit.js'
