import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { oauthTestProvider } from '../../../core/test/oidc/support/adapter-provider.js'
import { fastifyApp } from './fastify-app.js'

describeConformance(adapterSuite((scenario) => fastifyApp(scenario)))
describeConformance(adapterOAuthSuite((scenario) => fastifyApp(scenario), oauthTestProvider))
