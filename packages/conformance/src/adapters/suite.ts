import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { accountCases } from './account-cases.js'
import { accountEmailAddressCases } from './account-email-address-cases.js'
import { accountEmailCases } from './account-email-cases.js'
import { accountEmailChangeCases } from './account-email-change-cases.js'
import { accountEmailPasskeyCases } from './account-email-passkey-cases.js'
import { activeOrganizationCases } from './active-organization-cases.js'
import { activityCases } from './activity-cases.js'
import { administrationCases } from './administration-cases.js'
import { backchannelCases } from './backchannel-cases.js'
import { clientAddressCases, unknownClientAddressCases } from './client-address-cases.js'
import { dpopCases } from './dpop-cases.js'
import { handlerCases } from './handler-cases.js'
import { impersonationCases } from './impersonation-cases.js'
import { joinRequestCases } from './join-request-cases.js'
import { malformedUrlCases } from './malformed-url-cases.js'
import { mcpCases } from './mcp-cases.js'
import { mcpHostCases } from './mcp-host-cases.js'
import { type OAuthFixture, oauthCases } from './oauth-cases.js'
import { oauthNoticeCases } from './oauth-notice-cases.js'
import type { OAuthTestProvider } from './oauth-world.js'
import { organizationCases } from './organization-cases.js'
import { organizationDomainCases } from './organization-domain-cases.js'
import { organizationMcpCases } from './organization-mcp-cases.js'
import { organizationRaceCases } from './organization-race-cases.js'
import { organizationRefusalCases } from './organization-refusal-cases.js'
import { outageCases } from './outage-cases.js'
import { passkeyCases } from './passkey-cases.js'
import { policyCases } from './policy-cases.js'
import { type AdapterFactory, type AdapterFixture, adapterFixture } from './scenario.js'
import { telemetryCases } from './telemetry-cases.js'
import { totpCases } from './totp-cases.js'
import { uncompiledCases } from './uncompiled-cases.js'

/** How the adapter under test is configured. */
export interface AdapterSuiteOptions {
  /**
   * Whether the adapter sees each client's address (`known`, the default: the socket, and
   * `X-Forwarded-For` behind the proxies the scenario trusts) or cannot (`unknown`: the fetch form with
   * no address source). `unknown` swaps the per-client cases for the fail-closed one: every request
   * counts under one shared key.
   */
  readonly clientAddress?: 'known' | 'unknown'
}

/**
 * The HTTP adapter suite: what any Portcullis adapter (Express, Fastify, yours) must do over real HTTP,
 * given a factory that builds and starts the scenario's application with it: policy outcomes and
 * challenges, anyOf / allOf, duplicated credentials, guards and tenant path forgeries, one-use step-up,
 * routes declared where the adapter never compiles them (never served without their policy), what
 * handlers do themselves (a JSON body that does not parse is 400, their own `Cache-Control` and 401
 * challenge are kept), problem bodies, body limits naming the limit, the OpenAPI document, the passkey
 * and TOTP routes (registration and sign-in with a software authenticator, passkey step-up, enrollment,
 * two-step sign-in, recovery codes), 503 with `Retry-After` when a dependency is down, and DPoP-bound tokens (RFC 9449: proofs for
 * the public URL behind a proxy, challenges, server nonces), the client address behind per-address limits
 * (IPv6 counted by /64, failing closed when unknown) and the MCP endpoint's DNS-rebinding refusal.
 */
export function adapterSuite(
  factory: AdapterFactory,
  options: AdapterSuiteOptions = {},
): ConformanceSuite<AdapterFixture> {
  return {
    name: 'HTTP adapter conformance',
    cases: [
      ...policyCases,
      ...uncompiledCases,
      ...handlerCases,
      ...accountCases,
      ...passkeyCases,
      ...totpCases,
      ...impersonationCases,
      ...accountEmailCases,
      ...accountEmailPasskeyCases,
      ...accountEmailChangeCases,
      ...activityCases,
      ...administrationCases,
      ...accountEmailAddressCases,
      ...organizationCases,
      ...organizationRefusalCases,
      ...malformedUrlCases,
      ...organizationRaceCases,
      ...organizationDomainCases,
      ...joinRequestCases,
      ...activeOrganizationCases,
      ...mcpCases,
      ...organizationMcpCases,
      ...mcpHostCases,
      ...(options.clientAddress === 'unknown' ? unknownClientAddressCases : clientAddressCases),
      ...outageCases,
      ...dpopCases,
      ...telemetryCases,
    ],
    createContext: () => adapterFixture(factory),
    disposeContext: (fixture) => fixture.dispose(),
  }
}

/**
 * The OAuth part of the adapter suite, against a real OpenID Provider the adapter's test supplies
 * (`provider()` starts a fresh one per case): callback binding to the browser that began the round trip,
 * reauthentication issuing a one-use, purpose-bound step-up cookie, and the provider's back-channel
 * logout (across two instances; every malformed request refused alike).
 */
export function adapterOAuthSuite(
  factory: AdapterFactory,
  provider: () => Promise<OAuthTestProvider>,
): ConformanceSuite<OAuthFixture> {
  return {
    name: 'HTTP adapter conformance: OAuth',
    cases: [...oauthCases, ...oauthNoticeCases, ...backchannelCases],
    createContext: async () => ({ ...adapterFixture(factory), provider: await provider() }),
    disposeContext: async (fixture) => {
      await fixture.dispose()
      await fixture.provider.close()
    },
  }
}

/** Runs every case and throws an `AggregateError` naming each violated invariant. */
export function assertAdapterConformance(
  factory: AdapterFactory,
  options: AdapterSuiteOptions = {},
): Promise<void> {
  return assertSuite(adapterSuite(factory, options))
}
