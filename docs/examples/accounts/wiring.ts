// Wiring one provider registration: the protector, its account store, the token endpoint client, the
// account service and a revocation-retry drain job.
import {
  AESGCMOAuthTransactionProtector,
  accounts,
  loadOAuthTransactionProtectorKey,
  MemoryAccountStore,
} from '@portcullis/core'

function requiredEnv(name: string): string {
  const value = process.env[name]
  if (value === undefined || value.trim() === '') throw new Error(`${name} is required`)
  return value
}

const clientId = requiredEnv('GOOGLE_CLIENT_ID')
const clientSecret = requiredEnv('GOOGLE_CLIENT_SECRET')

// The key comes from the environment or a secret store, never from source code.
// #region the-provider-view-oauthaccountstore
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: loadOAuthTransactionProtectorKey({
    version: '2031-03',
    material: process.env.PORTCULLIS_VAULT_KEY,
    encoding: 'base64',
  }),
})

// One account store for passwords and every provider; each provider registration gets its view of it.
// Production uses a durable store that passes the same conformance suites (`PostgresAccountStore`); the
// memory store suits tests and single-process deployments.
export const accountStore = new MemoryAccountStore()
export const store = accountStore.oauth({ provider: 'google', clientId, protector })
// #endregion the-provider-view-oauthaccountstore

/** The provider's token and revocation endpoints (RFC 6749 section 6, RFC 7009) over fetch. */
export const tokenEndpoint: accounts.TokenEndpointClient = {
  async refresh({ refreshToken }) {
    const response = await fetch('https://oauth2.googleapis.com/token', {
      method: 'POST',
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
      }),
    })
    const body = (await response.json()) as Record<string, unknown>
    if (response.status === 400 && body.error === 'invalid_grant') return { kind: 'invalid-grant' }
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new Error(`token endpoint answered ${response.status}`)
    }
    return {
      kind: 'refreshed',
      tokens: {
        accessToken: body.access_token,
        expiresIn: Number(body.expires_in),
        ...(typeof body.token_type === 'string' ? { tokenType: body.token_type } : {}),
        ...(typeof body.scope === 'string' ? { scopes: body.scope.split(' ') } : {}),
        ...(typeof body.refresh_token === 'string' ? { refreshToken: body.refresh_token } : {}),
      },
    }
  },
  async revoke({ token, tokenTypeHint }) {
    const response = await fetch('https://oauth2.googleapis.com/revoke', {
      method: 'POST',
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
      body: new URLSearchParams({ token, token_type_hint: tokenTypeHint }),
    })
    if (!response.ok) throw new Error(`revocation endpoint answered ${response.status}`)
  },
}

export const oauthAccounts = new accounts.OAuthAccountService({ store, tokenEndpoint })

// Work off revocations that failed upstream. Several instances may run this at once: each retry is
// leased to one drain at a time.
// #region revocation
const drainJob = setInterval(() => {
  accounts.drainRevocationRetries({ store, tokenEndpoint, limit: 50, leaseSeconds: 300 }).then(
    (report) => {
      if (report.failed > 0) console.warn('revocations still failing upstream', report)
    },
    (error: unknown) => console.error('revocation drain failed', error),
  )
}, 60_000)
drainJob.unref()
// #endregion revocation
