// The session profile: an opaque session id in a `__Host-` cookie, server-side sessions in Postgres,
// CSRF protection for cookie-authenticated unsafe requests, and the generated `/auth/...` routes.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { requiresRole } from '@portcullis/core/authorization'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express from 'express'

const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(database)

// #region choosing-a-profile
export const local = new LocalAccounts({
  // The application picks the profile explicitly; it decides which mechanisms exist.
  profile: 'session',
  accounts: new PostgresAccountStore({ client: database }),
  sessions: new PostgresSessionStore({ client: database }),
  // Shared by every instance, so the sign-in limits hold across them.
  rateLimits: new PostgresRateLimitStore({ client: database }),
  // argon2id with OWASP parameters; wrapped in a bounded queue (half the cores hash at once).
  hasher: argon2idPasswordHasher(),
  registration: 'open',
  // The CSRF target and the cookie's origin.
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
  session: { idleTimeoutSeconds: 1800, absoluteTimeoutSeconds: 7 * 86_400, renewIntervalSeconds: 60 },
  // Other origins allowed to send unsafe requests with the cookie (a separate front end).
  trustedOrigins: ['https://admin.app.example'],
})

const security = createSecurity({
  // `[session]`: registering makes the mechanism available; route policy decides where it is accepted.
  mechanisms: local.mechanisms,
  authorizationResolver: async ({ principal }) => ({ roles: principal.id === 'root' ? ['admin'] : [] }),
})

export const app: express.Express = express()
app.use(security.middleware)
// Before your routes: the CSRF guard for every unsafe request carrying the session cookie, then
// POST /auth/register, /auth/login, /auth/logout, /auth/password/change, GET /auth/sessions,
// DELETE /auth/sessions/:id and GET /auth/csrf.
app.use(localAccountRoutes({ local, security }))
// #endregion choosing-a-profile

const api = security.router({ prefix: '/api' })
api.get('/me', { auth: required('session') }, (request, response) => {
  response.json({ account: request.security.principal.id })
})
// A cookie-authenticated POST passes the CSRF check before it gets here.
api.post(
  '/admin/reports',
  { auth: required('session'), guards: [requiresRole('admin')] },
  (_request, response) => {
    response.status(201).json({ queued: true })
  },
)
app.use(api)
