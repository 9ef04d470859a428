import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { oauthTestProvider } from '../../../core/test/oidc/support/adapter-provider.js'
import { fetchApp } from './fetch-app.js'

// Every route of the fetch form goes through `route(...)`, compiled before the next request: a route the
// adapter never compiled cannot be declared, so that case has nothing to run against.
const suite = adapterSuite((scenario) => fetchApp(scenario))
describeConformance({
  ...suite,
  cases: suite.cases.filter((entry) => entry.id !== 'adapter.uncompiled-route'),
})
describeConformance(adapterOAuthSuite((scenario) => fetchApp(scenario), oauthTestProvider))
