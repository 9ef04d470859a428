// The tokens profile: short-lived access JWTs signed by a local key ring (public keys served as a JWKS
// document), opaque rotating refresh tokens stored as digests in families.
import { readFile } from 'node:fs/promises'
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import { importLocalSigningKeyRing, LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
} from '@portcullis/postgres'
import express from 'express'

const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })

// Every instance loads the same ring from the secrets file (`ring.exportPrivate()` wrote it).
const ring = await importLocalSigningKeyRing(
  JSON.parse(await readFile('/run/secrets/signing-ring.json', 'utf8')),
)

export const local = new LocalAccounts({
  profile: 'tokens',
  accounts: new PostgresAccountStore({ client: database }),
  refreshTokens: new PostgresRefreshTokenStore({ client: database }),
  rateLimits: new PostgresRateLimitStore({ client: database }),
  hasher: argon2idPasswordHasher(),
  registration: 'invite-only',
  publicOrigin: 'https://api.example',
  passwordScreen: commonPasswordScreen(),
  // #region tokens-and-the-jwks-document
  tokens: {
    ring,
    issuer: 'https://api.example',
    audience: 'https://api.example',
    // Served by the routes below (GET /auth/jwks.json); the in-process verifier pins it and fetches nothing.
    jwksUri: 'https://api.example/auth/jwks.json',
    accessTokenLifetimeSeconds: 300,
    refreshTokenLifetimeSeconds: 14 * 86_400,
    refreshFamilyLifetimeSeconds: 30 * 86_400,
    // Workload JWTs also arrive as `Authorization: Bearer`: each mechanism leaves the other's alone.
    shareBearerHeader: true,
  },
  // #endregion tokens-and-the-jwks-document
})

const partners = workloadJwt({
  name: 'partners',
  issuer: 'https://auth.partner.example',
  audience: 'https://api.example',
  jwksUri: 'https://auth.partner.example/.well-known/jwks.json',
  jwks: new CachedJWKSProvider(),
  shareBearerHeader: true,
})

const security = createSecurity({ mechanisms: [...local.mechanisms, partners] })
export const app: express.Express = express()
app.use(security.middleware)
// POST /auth/register, /auth/token, /auth/token/refresh, /auth/token/revoke, /auth/logout,
// /auth/password/change and GET /auth/jwks.json.
app.use(localAccountRoutes({ local, security }))
const api = security.router({ prefix: '/api' })
api.get('/reports', { auth: anyOf('bearer', 'partners') }, (request, response) => {
  response.json({ for: request.security.principal.id })
})
app.use(api)

/** An invite for `invite-only` registration: hand the code to the person once. */
export async function invite(): Promise<string> {
  const { code } = await local.issueInvite({ expiresInSeconds: 3 * 86_400 })
  return code
}
