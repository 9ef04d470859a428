// The same suites under `node --test` (run with tsx or after compiling).

import { describeConformance } from '@portcullis/conformance/node-test'
import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { MemoryStepUpStore } from '@portcullis/core/step-up'

describeConformance(stepUpStoreSuite(() => ({ store: new MemoryStepUpStore() })))
