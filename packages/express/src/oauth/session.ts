import type { AuthPolicy } from '@portcullis/core/policy'
import { localSessionReader } from '@portcullis/http/oauth'
import type { Security } from '../security/create-security.js'
import type { CurrentSession } from './options.js'

export { localSessionOf } from '@portcullis/http/oauth'

/**
 * `currentSession` for the OAuth routes, wired to the local-accounts mechanisms: evaluates `policy`
 * (default `required()`) against the request's memoized authentication (no mechanism runs twice) and
 * reads the session from its evidence with `localSessionOf`. Nothing presented or a rejected credential
 * is "no session" (the routes answer 401); an unavailable session store is a 503.
 */
export function currentLocalSession(
  security: Pick<Security, 'evaluator' | 'evaluation'>,
  policy?: AuthPolicy,
): CurrentSession {
  return localSessionReader(security, policy)
}
