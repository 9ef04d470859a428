// The hybrid profile: a browser front end on the session cookie and a mobile app on tokens, as two
// distinct mechanisms. `establishLocalSignIn` is what an OAuth callback calls once it knows the account.
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import { establishLocalSignIn } from '@portcullis/core/local-accounts'
import { anyOf, required } from '@portcullis/core/policy'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import express from 'express'

export function hybridApp(local: LocalAccounts): express.Express {
  if (local.profile !== 'hybrid') throw new Error('this example wants the hybrid profile')
  const security = createSecurity({ mechanisms: local.mechanisms })
  const auth = localAccountRoutes({ local, security })
  const app = express()
  app.use(security.middleware)
  app.use(auth)

  const api = security.router({ prefix: '/api' })
  // Either transport; a request carrying both for different accounts is refused (401).
  api.get('/me', { auth: anyOf('session', 'bearer') }, (request, response) => {
    response.json({ account: request.security.principal.id })
  })
  // Browser-only: changing what the session may do rotates its id (no fixation).
  api.post('/me/elevate', { auth: required('session') }, async (request, response) => {
    await auth.rotateSession(request, response) // sets the new cookie
    response.json({ elevated: true })
  })
  app.use(api)

  // An OAuth callback (next issue) that resolved the provider identity to `accountId`:
  // #region signing-in-from-elsewhere-establishlocal
  app.get('/oauth/callback/demo', async (request, response) => {
    const accountId = String(request.query.account)
    // Sets the session cookie, replacing the one the browser came with; nothing is sent yet.
    await auth.establishSignIn(request, response, { accountId, transport: 'session' })
    response.redirect(303, '/')
  })
  // #endregion signing-in-from-elsewhere-establishlocal
  return app
}

/** Outside HTTP (a job, a test): the core function, with the transport explicit in the hybrid profile. */
export async function tokensFor(local: LocalAccounts, accountId: string): Promise<string> {
  const signIn = await establishLocalSignIn(local, { accountId, transport: 'tokens' })
  if (signIn.transport !== 'tokens') throw new Error('unreachable')
  return signIn.access_token
}
