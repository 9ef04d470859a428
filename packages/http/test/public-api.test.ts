// The package root exports exactly the union of its subpaths (read from the package.json `exports` map):
// the same binding under the same name, and nothing else.
import { compareSurface, compilerExports, packageSurface } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

const packageRoot = new URL('../', import.meta.url)
const { entries, subpaths, importRoot } = packageSurface(packageRoot)

describe('the package root of @portcullis/http', () => {
  it.each(subpaths.map((entry) => [entry.subpath, entry] as const))(
    'exports every runtime name of %s as the same value',
    async (_subpath, entry) => {
      const subpath: Record<string, unknown> = await import(entry.url.href)
      const everything = await importRoot()
      for (const name of Object.keys(subpath)) expect(everything[name], name).toBe(subpath[name])
    },
  )

  it('exports every type and value name of every subpath as the same symbol, and nothing else', () => {
    const { collisions, missing, different, extra } = compareSurface(compilerExports(packageRoot, entries))
    expect({ collisions, missing, different, extra }).toEqual({
      collisions: [],
      missing: [],
      different: [],
      extra: [],
    })
  })
})
