import { describe, it } from 'vitest'
import type { ConformanceSuite } from '../suite/suite.js'

/** Registers one vitest test per case, so each invariant reports on its own line. */
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
