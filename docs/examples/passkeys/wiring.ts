// Passkeys: registration to a signed-in account, sign-in with a discoverable credential, and a passkey
// step-up that issues the one-use StepUpCredential `requiresStepUp(purpose)` consumes.
import { randomBytes } from 'node:crypto'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { PasskeyStepUp } from '@portcullis/core/passkeys'
import { StepUpService } from '@portcullis/core/step-up'
import { PasskeyService } from '@portcullis/passkeys'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  PostgresAccountStore,
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import type express from 'express'

const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })

// #region passkeys-webauthn
export const passkeys = new PasskeyService({
  // Checked exactly: the RP ID authenticators hash, and every origin ceremonies may come from.
  rpId: 'app.example',
  rpName: 'Example App',
  origins: ['https://app.example'],
  passkeys: new PostgresPasskeyStore({ client: database }),
  challenges: new PostgresPasskeyChallengeStore({ client: database }),
  // #endregion passkeys-webauthn
  // HMAC key of the stored challenge, browser-binding and session digests (from a secret store).
  pepper: Buffer.from(
    process.env.PORTCULLIS_PASSKEY_PEPPER ?? randomBytes(32).toString('base64url'),
    'base64url',
  ),
})

export const local = new LocalAccounts({
  profile: 'session',
  accounts: new PostgresAccountStore({ client: database }),
  sessions: new PostgresSessionStore({ client: database }),
  rateLimits: new PostgresRateLimitStore({ client: database }),
  hasher: { hash: async () => '', verify: async () => false, needsRehash: () => false },
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
})
// Its step-up: a verified passkey assertion earns the same one-use StepUpCredential a password re-entry does.
const passkeyStepUp = new PasskeyStepUp({
  passkeys,
  stepUp: new StepUpService({ store: new PostgresStepUpStore({ client: database }) }),
})

// The challenge is bound to the browser by an HttpOnly cookie, as OAuth transactions are.
const BINDING = '__Host-portcullis-passkey'
const bindingOf = (request: express.Request) =>
  /(?:^|;\s*)__Host-portcullis-passkey=([\w-]{43})/.exec(request.headers.cookie ?? '')?.[1]
const setBinding = (response: express.Response, value: string) =>
  response.append('Set-Cookie', `${BINDING}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=600`)

/** Sign-in, step 1: options for `navigator.credentials.get()` (discoverable: conditional UI works). */
export async function beginSignIn(request: express.Request, response: express.Response): Promise<void> {
  const start = await passkeys.beginAuthentication({ browserBinding: bindingOf(request) })
  if (!start.bindingReused) setBinding(response, start.revealBrowserBinding())
  response.json(start.options)
}

/** Sign-in, step 2: the verified passkey names the account; establish the session as for any sign-in. */
// #region sign-in
export async function finishSignIn(request: express.Request, response: express.Response): Promise<void> {
  const assertion = await passkeys.finishAuthentication({
    browserBinding: bindingOf(request),
    response: request.body,
  })
  const signIn = await local.establishSignIn({ accountId: assertion.accountId, transport: 'session' })
  if (signIn.transport === 'session') response.append('Set-Cookie', signIn.setCookie)
  response.json({ accountId: assertion.accountId })
}
// #endregion sign-in

/** Step-up with a passkey: the assertion earns the one-use credential `requiresStepUp(purpose)` consumes. */
export async function finishStepUp(
  request: express.Request,
  response: express.Response,
  session: { readonly accountId: string; readonly securityEpoch: number; readonly sessionHandle: string },
): Promise<void> {
  // #region the-ceremonies
  const credential = await passkeyStepUp.finish({
    session,
    purpose: 'delete-account',
    browserBinding: bindingOf(request),
    response: request.body,
  })
  // #endregion the-ceremonies
  response.json({ stepUpToken: credential.reveal(), expiresAt: credential.expiresAt })
}
