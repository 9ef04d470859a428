// Core's own manifest: its runtime dependencies are jose and openid-client, nothing else (DESIGN.md §1).
// The import rule cannot see a dependency that nothing imports (or one loaded in a way it does not
// follow), so the manifest is checked itself; the check is shown failing on manifests that break it.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const ALLOWED = ['jose', 'openid-client']
/** Every field whose packages a user's install pulls in with core (devDependencies stay in the workspace). */
const RUNTIME_FIELDS = [
  'dependencies',
  'peerDependencies',
  'optionalDependencies',
  'bundleDependencies',
] as const

/** The runtime dependencies of a manifest beyond `allowed`, as `field: name`. */
function runtimeDependenciesBeyond(manifest: Record<string, unknown>, allowed: readonly string[]): string[] {
  return RUNTIME_FIELDS.flatMap((field) => {
    const value = manifest[field]
    const names = Array.isArray(value) ? value.map(String) : Object.keys((value as object | undefined) ?? {})
    return names.filter((name) => !allowed.includes(name)).map((name) => `${field}: ${name}`)
  })
}

const core = JSON.parse(readFileSync(new URL('../../../packages/core/package.json', import.meta.url), 'utf8'))

describe("core's manifest", () => {
  it('has jose and openid-client as its only runtime dependencies', () => {
    expect(core.name).toBe('@portcullis/core')
    expect(runtimeDependenciesBeyond(core, ALLOWED)).toEqual([])
    expect(Object.keys(core.dependencies).sort()).toEqual(ALLOWED)
  })

  it('the check fails for a manifest that gains a dependency in any runtime field', () => {
    const grown = {
      ...core,
      dependencies: { ...core.dependencies, '@zxcvbn-ts/language-common': '4.1.3' },
      peerDependencies: { express: '5' },
      optionalDependencies: { pg: '8' },
      bundleDependencies: ['left-pad'],
      devDependencies: { vitest: '4' },
    }
    expect(runtimeDependenciesBeyond(grown, ALLOWED)).toEqual([
      'dependencies: @zxcvbn-ts/language-common',
      'peerDependencies: express',
      'optionalDependencies: pg',
      'bundleDependencies: left-pad',
    ])
  })
})
