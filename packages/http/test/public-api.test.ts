// The package root exports exactly the union of its subpaths (read from the package.json `exports` map):
// the same binding under the same name, and nothing else.
import { cleanRootSurface, rootSurfaceReport } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

describe('the package root of @portcullis/http', () => {
  it('exports every name of every subpath as the same binding (runtime values and compiler symbols), and nothing else', async () => {
    expect(await rootSurfaceReport(new URL('../', import.meta.url), [])).toEqual(cleanRootSurface([]))
  })
})
