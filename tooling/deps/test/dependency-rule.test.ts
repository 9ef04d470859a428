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
  // a circle is reported over several lines: `from →` then the rest of the circle, one module a line
  const violations = [...run.stdout.matchAll(/error (\S+): (\S+) \u2192\s+(\S+)/g)].map(
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
      'adapter-no-other-adapter packages/fastify/src/uses-express-adapter.ts',
      'adapter-no-other-adapter packages/hono/src/uses-fastify-adapter.ts',
      'common-password-list-in-password-blocklist-only packages/core/src/uses-common-password-list.ts',
      'conformance-no-adapter packages/conformance/src/uses-express-adapter.ts',
      'core-no-framework-or-driver packages/core/src/uses-express.ts',
      'core-no-framework-or-driver packages/core/src/uses-hono-server.ts',
      'core-no-node-network-server packages/core/src/uses-http.ts',
      'core-no-workspace-package packages/core/src/uses-adapter.ts',
      'core-only-allowed-npm-packages packages/core/src/uses-common-password-list.ts',
      'core-only-allowed-npm-packages packages/core/src/uses-express.ts',
      'core-only-allowed-npm-packages packages/core/src/uses-hono-server.ts',
      'core-only-allowed-npm-packages packages/core/src/uses-otpauth.ts',
      'http-no-framework packages/http/src/uses-express.ts',
      'http-no-framework packages/http/src/uses-hono-server.ts',
      'http-only-core packages/http/src/uses-fastify-adapter.ts',
      'http-web-no-node-server packages/http/src/web/index.ts',
      'no-circular packages/express/src/endpoint-options.ts',
      'one-time-codes-library-in-totp-only packages/core/src/uses-otpauth.ts',
      'webauthn-library-in-passkeys-only packages/http/src/uses-webauthn.ts',
    ])
    expect(status).toBe(20)
    expect(violations.some((v) => v.from?.endsWith('clean.ts'))).toBe(false)
    expect(violations.some((v) => v.from?.startsWith('packages/passkeys/'))).toBe(false)
    expect(violations.some((v) => v.from?.endsWith('uses-passkeys.ts'))).toBe(false)
  })

  it("counts type-only imports in a circle: two files that only import each other's types are refused", () => {
    const { violations } = cruise(fixtures, ['packages'])
    const circle = violations.find((v) => v.rule === 'no-circular')
    expect(circle).toEqual({
      rule: 'no-circular',
      from: 'packages/express/src/endpoint-options.ts',
      to: 'packages/express/src/endpoint.ts',
    })
  })

  it('follows the Web path of the HTTP layer through every import to a Node server module', () => {
    const { violations } = cruise(fixtures, ['packages'])
    // web/index.ts imports nothing from node:http itself: a module outside web/ it imports does
    expect(violations.filter((v) => v.rule === 'http-web-no-node-server')).toEqual([
      { rule: 'http-web-no-node-server', from: 'packages/http/src/web/index.ts', to: 'http' },
    ])
    // the module that imports node:http is outside web/ and breaks no rule of its own
    expect(violations.some((v) => v.from === 'packages/http/src/status-titles.ts')).toBe(false)
  })
})
