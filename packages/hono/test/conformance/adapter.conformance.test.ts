import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { oauthTestProvider } from '../../../core/test/oidc/support/adapter-provider.js'
import { honoApp } from './hono-app.js'

describeConformance(adapterSuite((scenario) => honoApp(scenario)))
describeConformance(adapterOAuthSuite((scenario) => honoApp(scenario), oauthTestProvider))
