import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { oauthTestProvider } from '../../../core/test/oidc/support/adapter-provider.js'
import { expressApp } from './express-app.js'

describeConformance(adapterSuite((scenario) => expressApp(scenario)))
describeConformance(adapterOAuthSuite((scenario) => expressApp(scenario), oauthTestProvider))
