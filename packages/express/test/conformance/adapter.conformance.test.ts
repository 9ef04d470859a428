import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { expressApp } from './express-app.js'
import { oauthTestProvider } from './oauth-provider.js'

describeConformance(adapterSuite((scenario) => expressApp(scenario)))
describeConformance(adapterOAuthSuite((scenario) => expressApp(scenario), oauthTestProvider))
