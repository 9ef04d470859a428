import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { fastifyApp } from './fastify-app.js'
import { oauthTestProvider } from './oauth-provider.js'

describeConformance(adapterSuite((scenario) => fastifyApp(scenario)))
describeConformance(adapterOAuthSuite((scenario) => fastifyApp(scenario), oauthTestProvider))
