import { describe, it } from 'node:test'
import type { ConformanceSuite } from '../suite/suite.js'

/** Registers one `node:test` test per case. */
export function describeConformance<Context>(suite: ConformanceSuite<Context>): void {
  describe(suite.name, () => {
    for (const testCase of suite.cases) {
      it(`${testCase.id}: ${testCase.title}`, async () => {
        const context = await suite.createContext()
        try {
          await testCase.run(context)
        } finally {
          await suite.disposeContext?.(context)
        }
      })
    }
  })
}
