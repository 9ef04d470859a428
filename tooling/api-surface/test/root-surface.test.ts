// rootSurfaceReport against a fixture package whose root re-exports the `Triangle` class of `./shapes` as a
// type only (absent at runtime) and exports a type of its own (`Shape`).
import { describe, expect, it } from 'vitest'
import { rootSurfaceReport } from '../src/index.js'

const fixture = new URL('./fixtures/package-after/', import.meta.url)

describe('rootSurfaceReport', () => {
  it('names a subpath value the root lacks at runtime, and lists the names only the root has', async () => {
    expect(await rootSurfaceReport(fixture, ['Shape'])).toEqual({
      runtime: ['./shapes: Triangle'],
      runtimeExtra: [],
      collisions: [],
      missing: [],
      different: [],
      clashes: [],
      rootOnly: ['Shape'],
    })
  })

  it('names an own name that a subpath exports too', async () => {
    const report = await rootSurfaceReport(fixture, ['Shape', 'UNIT'])
    expect(report.clashes).toEqual(['UNIT'])
    expect(report.rootOnly).toEqual(['Shape'])
  })
})
