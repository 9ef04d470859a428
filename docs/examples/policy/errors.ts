// Errors are RFC 9457 problem+json with a stable `code`. Handlers throw; Portcullis renders.
import { optional, PortcullisError, required } from '@portcullis/core'
import { createSecurity, HttpProblem, requirePrincipal } from '@portcullis/express'
import { sessionMechanism } from './session.js'

const security = createSecurity({ mechanisms: [sessionMechanism], onError: (error) => console.error(error) })
const api = security.router()

class QuotaExceeded extends PortcullisError {
  readonly retryAfterSeconds = 30
  constructor() {
    super('projects.quota_exceeded', 'rate-limited', 'project quota exceeded')
  }
}

// #region error-bodies
api.post('/projects', { auth: optional(required()) }, (req) => {
  // 401 `authentication.required` when anonymous.
  const principal = requirePrincipal(req)
  if (principal.kind === 'service') {
    // Rendered as given: keep the detail client-safe.
    throw new HttpProblem({
      status: 403,
      code: 'projects.users_only',
      detail: 'Only users can create projects',
    })
  }
  // 429 with `Retry-After: 30`, body `{ type, title, status: 429, code: "projects.quota_exceeded", detail }`.
  throw new QuotaExceeded()
})

// #endregion error-bodies

export { api }
