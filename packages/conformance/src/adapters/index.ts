// The HTTP adapter suite: run it against your adapter with a factory that builds the scenario's app.
export type { Answer, Call } from './http-client.js'
export { call, cookieHeader } from './http-client.js'
export type { StaticCredential } from './mechanisms.js'
export type { OAuthFixture } from './oauth-cases.js'
export type {
  BackchannelTestProvider,
  NotificationsTestProvider,
  OAuthTestProvider,
} from './oauth-world.js'
export type {
  AdapterApp,
  AdapterFactory,
  AdapterFixture,
  AdapterScenario,
  ScenarioMcp,
  ScenarioOAuth,
  ScenarioRequest,
  ScenarioRoute,
  ScenarioSecurity,
  ScenarioSignIn,
} from './scenario.js'
export type { AdapterSuiteOptions } from './suite.js'
export { adapterOAuthSuite, adapterSuite, assertAdapterConformance } from './suite.js'
