import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { Request, Response } from 'express'
import { field, requestInfo } from './forms.js'

/** The CSRF check and token of a form anyone may send (sign-in, sign-up, a password reset). */
export interface AnonymousForms {
  /** The check of `/auth/login`: Fetch Metadata, Origin, or the form's synchronizer token. */
  passes(request: Request): boolean
  /** The token for the form (a pre-session cookie is set when there is no session yet). */
  token(request: Request, response: Response): string
}

export function anonymousForms(local: LocalAccounts): AnonymousForms {
  return {
    passes: (request) =>
      local.csrf.check({
        method: request.method,
        secFetchSite: request.get('sec-fetch-site'),
        origin: request.get('origin'),
        presentedToken: field(request, 'csrf_token') || request.get(local.csrf.header),
        sessionId: local.csrf.anchorFrom(request.headers.cookie),
        clientAddress: local.clientAddress(requestInfo(request)),
      }).ok,
    token(request, response) {
      const anchor = local.csrf.anchorFrom(request.headers.cookie)
      if (anchor !== undefined) return local.csrf.token(anchor)
      const seed = local.csrf.newSeed()
      response.append('Set-Cookie', seed.setCookie)
      return seed.csrfToken
    },
  }
}
