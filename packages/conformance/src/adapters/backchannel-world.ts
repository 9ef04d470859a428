import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type SecurityEvent,
} from '@portcullis/core/local-accounts'
import { BackchannelLogout } from '@portcullis/core/oidc'
import { anyOf } from '@portcullis/core/policy'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { ORIGIN, scryptHasher } from './account-world.js'
import type { OAuthTestProvider } from './oauth-world.js'
import type { AdapterScenario } from './scenario.js'

/**
 * The back-channel logout world: application instances over one set of stores (accounts, sessions,
 * the replay store) and one revocation notice channel, each with its own local accounts (session
 * profile), the OAuth routes with the provider's back-channel logout, and `GET /me` for any session.
 * An OAuth sign-in establishes a local session from the provider session (`providerSession`), so the
 * provider's logout of that session ends it on every instance.
 */
export interface BackchannelWorld {
  /** A fresh instance's scenario (its own `LocalAccounts` over the shared stores). */
  instance(): AdapterScenario
  /** Every security event the OAuth routes of any instance emitted, in order. */
  readonly events: readonly SecurityEvent[]
  /** The provider `sid` of each OAuth sign-in, in order. */
  readonly sids: readonly string[]
}

export function backchannelWorld(provider: OAuthTestProvider): BackchannelWorld {
  const notices = new MemoryRevocationNotices()
  const stores = {
    accounts: new MemoryAccountStore(),
    sessions: new MemorySessionStore({ notices }),
    rateLimits: new MemoryRateLimitStore(),
  }
  const events: SecurityEvent[] = []
  const sids: string[] = []
  const instance = (): AdapterScenario => {
    const local = new LocalAccounts({
      profile: 'session',
      ...stores,
      hasher: scryptHasher(),
      publicOrigin: ORIGIN,
      passwordScreen: commonPasswordScreen(),
      revocation: { notices, maxStalenessSeconds: 60 },
    })
    const auth = anyOf(...(local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]))
    return {
      security: {
        mechanisms: local.mechanisms,
        openapi: { info: { title: 'Back-channel logout conformance', version: '1' } },
      },
      routes: [
        {
          method: 'GET',
          path: '/me',
          options: { auth },
          respond: ({ security }) => ({ id: security.principal?.id }),
        },
      ],
      oauth: {
        lifecycle: provider.lifecycle,
        auth,
        signIn: async (accountId, identity) => {
          if ((await stores.accounts.getAccount(accountId)) === null) {
            await stores.accounts.createAccount({
              accountId,
              username: `user.${identity.subject}`.toLowerCase(),
              passwordHash: '$test$none',
              now: new Date(),
            })
          }
          if (identity.sessionId !== undefined) sids.push(identity.sessionId)
          const signIn = await local.establishSignIn({ accountId, providerSession: identity })
          if (signIn.transport !== 'session') throw new Error('the session profile answered tokens')
          return { setCookie: signIn.setCookie, body: { signedIn: true } }
        },
        backchannelLogout: new BackchannelLogout({
          lifecycle: provider.lifecycle,
          revokeSessions: (match) => local.revokeProviderSessions(match),
          replay: stores.rateLimits,
        }),
        events: (event) => {
          events.push(event)
        },
      },
    }
  }
  return { instance, events, sids }
}
