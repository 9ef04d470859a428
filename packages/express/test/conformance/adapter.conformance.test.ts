import { adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { expressApp } from './express-app.js'

describeConformance(adapterSuite((scenario) => expressApp(scenario)))
