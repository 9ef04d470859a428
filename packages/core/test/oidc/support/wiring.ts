// Lifecycle wiring for providers that are not the loopback test IdP (presets against a scripted network,
// GitHub): memory stores, a transaction service and a step-up service around the given registrations.
import { randomBytes } from 'node:crypto'
import { MemoryOAuthAccountStore } from '../../../src/oauth/accounts/memory-store.js'
import { MemoryOAuthTransactionStore } from '../../../src/oauth/transactions/memory-store.js'
import { OAuthRedirectPolicy } from '../../../src/oauth/transactions/redirect-policy.js'
import { OAuthTransactionService } from '../../../src/oauth/transactions/service.js'
import { OAuthLifecycleService } from '../../../src/oidc/lifecycle.js'
import type { OAuthProviderRegistration } from '../../../src/oidc/registration.js'
import { AESGCMOAuthTransactionProtector } from '../../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../../src/protection/key.js'
import type { OAuthTransactionProtector } from '../../../src/protection/protector.js'
import { MemoryStepUpStore } from '../../../src/step-up/memory-store.js'
import { StepUpService } from '../../../src/step-up/service.js'

export const CALLBACK = 'https://app.example/auth/oauth/callback'

export function testProtector(): OAuthTransactionProtector {
  return new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('test', randomBytes(32)),
  })
}

export function accountStore(protector: OAuthTransactionProtector, provider: string, clientId: string) {
  return new MemoryOAuthAccountStore({ provider, clientId, protector })
}

/** A lifecycle around registrations whose `accounts` were built with `protector`. */
export function lifecycleFor(
  registrations: readonly OAuthProviderRegistration[],
  protector: OAuthTransactionProtector,
): { lifecycle: OAuthLifecycleService; stepUp: StepUpService } {
  const callbackUris = Object.fromEntries(
    registrations.map((registration) => [registration.provider.name, [CALLBACK]]),
  )
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  const lifecycle = new OAuthLifecycleService({
    registrations,
    transactions: new OAuthTransactionService({
      store: new MemoryOAuthTransactionStore({ protector }),
      pepper: randomBytes(32),
      redirects: new OAuthRedirectPolicy({ callbackUris }),
    }),
    stepUp,
  })
  return { lifecycle, stepUp }
}

export type Route = (request: { url: string; init: RequestInit }) => Response | Promise<Response>

/** A scripted network: exact URL (without query) -> handler; every host resolves to a public address. */
export function scriptedNetwork(routes: Record<string, Route>) {
  const requests: string[] = []
  return {
    requests,
    fetch: async (url: string, init: RequestInit): Promise<Response> => {
      requests.push(url)
      const route = routes[url.split('?')[0] as string]
      if (route === undefined) throw new TypeError(`no route for ${url}`)
      return route({ url, init })
    },
    resolveHost: async (): Promise<readonly string[]> => ['93.184.216.34'],
  }
}

export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}
