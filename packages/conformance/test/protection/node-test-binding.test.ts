import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const packageRoot = fileURLToPath(new URL('../..', import.meta.url))
const at = (path: string) => JSON.stringify(join(packageRoot, path))

function runNodeTest(flaws: string) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-protection-node-test-'))
  const file = join(dir, 'protection.test.ts')
  writeFileSync(
    file,
    `
import { describeConformance } from ${at('src/bindings/node-test.ts')}
import { oauthTransactionProtectorSuite, oauthTransactionStoreSuite } from ${at('src/protection/index.ts')}
import { handWrittenSubject } from ${at('test/protection/broken-protectors.ts')}
import { handWrittenStoreSubject } from ${at('test/protection/broken-stores.ts')}
describeConformance(oauthTransactionProtectorSuite(() => handWrittenSubject(${flaws})))
describeConformance(oauthTransactionStoreSuite(() => handWrittenStoreSubject(${flaws})))
`,
  )
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@portcullis/source', '--test', '--test-reporter=spec', file],
    { cwd: packageRoot, encoding: 'utf8', timeout: 120_000 },
  )
}

describe('protection suites under node:test', () => {
  it('register one passing test per case for conforming implementations', () => {
    const run = runNodeTest('{}')
    expect(run.status, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toContain('protector.byte-substitution')
    expect(run.stdout).toContain('store.concurrent-consume')
    expect(run.stdout).toMatch(/ℹ pass 25\b/)
  })

  it('fail the named invariants for broken implementations', () => {
    const run = runNodeTest('{ fixedNonce: true, nonAtomicConsume: true }')
    expect(run.status).not.toBe(0)
    const output = run.stdout + run.stderr
    expect(output).toContain('[protector.non-deterministic]')
    expect(output).toContain('[store.concurrent-consume]')
    expect(output).toMatch(/ℹ fail 2\b/)
  })
})
