import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const packageRoot = fileURLToPath(new URL('..', import.meta.url))

function runNodeTest(source: string) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-node-test-'))
  const file = join(dir, 'suite.test.ts')
  writeFileSync(file, source)
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@portcullis/source', '--test', '--test-reporter=spec', file],
    { cwd: packageRoot, encoding: 'utf8', timeout: 60_000 },
  )
}

const suiteSource = (increment: number) => `
import { conformanceCase } from '${join(packageRoot, 'src/index.ts')}'
import { describeConformance } from '${join(packageRoot, 'src/bindings/node-test.ts')}'
describeConformance({
  name: 'adder',
  createContext: () => ({ add: (n: number) => n + ${increment} }),
  cases: [conformanceCase('adder.one', 'adds exactly one', (ctx, check) => { check(ctx.add(1) === 2) })],
})
`

describe('node:test binding', () => {
  it('passes a conforming implementation under node --test', () => {
    const run = runNodeTest(suiteSource(1))
    expect(run.status, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toContain('adder.one: adds exactly one')
  })

  it('fails under node --test, naming the invariant, when the implementation breaks it', () => {
    const run = runNodeTest(suiteSource(2))
    expect(run.status).not.toBe(0)
    expect(run.stdout + run.stderr).toContain('[adder.one] adds exactly one')
  })
})
