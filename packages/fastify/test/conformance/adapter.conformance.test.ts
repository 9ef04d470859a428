import { adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { fastifyApp } from './fastify-app.js'

describeConformance(adapterSuite((scenario) => fastifyApp(scenario)))
