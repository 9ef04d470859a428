// Step-up for API clients (RFC 9470): routes state what authentication they need with pure guards over
// the access token's verified `acr` / `auth_time`; a client whose token falls short gets
// `401 WWW-Authenticate: Bearer error="insufficient_user_authentication", max_age="300"` (or
// `acr_values="..."`), re-authorizes at the IdP with those parameters, and retries with the new token.
import { acrAtLeast, authenticatedWithin, requiresStepUp } from '@portcullis/core/authorization'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { required } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import { createSecurity } from '@portcullis/express'

const ISSUER = 'https://login.example.com'
const LEVELS = ['urn:example:loa:1', 'urn:example:loa:2', 'urn:example:loa:3']

const security = createSecurity({
  mechanisms: [
    // A bearer mechanism (an http/bearer security scheme): its clients get RFC 9470 challenges.
    workloadJwt({
      name: 'user-token',
      issuer: ISSUER,
      audience: 'https://api.example.com',
      jwksUri: `${ISSUER}/.well-known/jwks.json`,
      jwks: new CachedJWKSProvider(),
    }),
  ],
})

export const api = security.router({ prefix: '/api' })

// Authenticated at most 5 minutes ago, at level 2 or above. Each guard denies with the parameter a
// client needs: `max_age="300"`, then `acr_values="urn:example:loa:2 urn:example:loa:3"`.
// #region step-up-for-api-clients-rfc-9470
api.post(
  '/payouts',
  {
    auth: required('user-token'),
    guards: [authenticatedWithin(300), acrAtLeast('urn:example:loa:2', { levels: LEVELS })],
  },
  (_request, response) => {
    response.status(202).json({ queued: true })
  },
)
// #endregion step-up-for-api-clients-rfc-9470

// A one-use step-up credential route; bearer clients without one are told what to re-authorize with.
api.delete(
  '/account',
  {
    auth: required('user-token'),
    guards: [requiresStepUp('delete-account', { challenge: { maxAge: 0 } })],
  },
  (_request, response) => {
    response.status(204).end()
  },
)

/** The client's side: parse the challenge, re-authorize with its parameters, retry once. */
export async function callWithStepUp(
  url: string,
  token: string,
  reauthorize: (parameters: { maxAge?: number; acrValues?: string }) => Promise<string>,
): Promise<Response> {
  const first = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  const challenge = first.headers.get('www-authenticate') ?? ''
  if (first.status !== 401 || !challenge.includes('error="insufficient_user_authentication"')) return first
  const maxAge = /max_age="(\d+)"/.exec(challenge)?.[1]
  const acrValues = /acr_values="([^"]*)"/.exec(challenge)?.[1]
  const fresher = await reauthorize({
    ...(maxAge === undefined ? {} : { maxAge: Number(maxAge) }),
    ...(acrValues === undefined ? {} : { acrValues }),
  })
  return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${fresher}` } })
}
