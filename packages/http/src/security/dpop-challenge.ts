import type { AuthenticationChallenge } from '@portcullis/core/authentication'
import type { ProblemInit } from '../problem/problem.js'

const CODES: Readonly<Record<AuthenticationChallenge['error'], { code: string; detail: string }>> = {
  invalid_dpop_proof: { code: 'dpop.invalid_proof', detail: 'The DPoP proof is invalid' },
  use_dpop_nonce: { code: 'dpop.nonce_required', detail: 'A DPoP proof with the server nonce is required' },
  invalid_token: {
    code: 'dpop.invalid_token',
    detail: 'The access token must be presented with a DPoP proof of its key',
  },
}

// Nonces and algorithm names come from the server, never from the request; still, a value that would
// break the quoted-string is never written.
const SAFE = /^[\x21\x23-\x5b\x5d-\x7e]+$/

/**
 * The 401 problem for a credential refused with an RFC 9449 challenge: `dpop.invalid_proof`,
 * `dpop.nonce_required` or `dpop.invalid_token`, with `WWW-Authenticate: DPoP error="...",
 * algs="ES256 ..."` and, for `use_dpop_nonce`, the `DPoP-Nonce` header.
 */
export function dpopProblem(challenge: AuthenticationChallenge): ProblemInit {
  const { code, detail } = CODES[challenge.error]
  const algs = challenge.algorithms.filter((alg) => SAFE.test(alg)).join(' ')
  const headers: Record<string, string> = {
    'WWW-Authenticate': `DPoP error="${challenge.error}", algs="${algs}"`,
  }
  if (challenge.nonce !== undefined && SAFE.test(challenge.nonce)) headers['DPoP-Nonce'] = challenge.nonce
  return { status: 401, code, detail, headers }
}
