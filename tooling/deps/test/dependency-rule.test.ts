import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const config = fileURLToPath(new URL('../dependency-cruiser.cjs', import.meta.url))
const fixtures = fileURLToPath(new URL('../fixtures/violations', import.meta.url))
const depcruise = fileURLToPath(new URL('../node_modules/.bin/depcruise', import.meta.url))

/** Runs the check exactly as `pnpm deps:check` does (the `err` reporter, whose exit code counts errors). */
function cruise(cwd: string, paths: string[]) {
  const run = spawnSync(depcruise, ['--config', config, ...paths], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
  })
  const violations = [...run.stdout.matchAll(/error (\S+): (\S+) \u2192 (\S+)/g)].map(
    ([, rule, from, to]) => ({
      rule,
      from,
      to,
    }),
  )
  return { status: run.status, violations }
}

describe('dependency rule', () => {
  it('fails, naming the rule, for each deliberate violation', () => {
    const { status, violations } = cruise(fixtures, ['packages'])
    expect(status).not.toBe(0)
    const found = violations.map((v) => `${v.rule} ${v.from}`).sort()
    expect(found).toEqual([
      'adapter-no-other-adapter packages/express/src/uses-postgres.ts',
      'core-no-framework-or-driver packages/core/src/uses-express.ts',
      'core-no-node-network-server packages/core/src/uses-http.ts',
      'core-no-workspace-package packages/core/src/uses-adapter.ts',
      'core-only-allowed-npm-packages packages/core/src/uses-express.ts',
    ])
    expect(status).toBe(5)
    expect(violations.some((v) => v.from?.endsWith('clean.ts'))).toBe(false)
  })
})
