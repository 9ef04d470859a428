// examples/conformance/node-test.test.ts is written for `node --test`, not vitest: run it that way, with
// the workspace packages resolved to their sources, and check that its cases ran and passed.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const docsRoot = fileURLToPath(new URL('../', import.meta.url))

it('runs the node:test conformance example, every case passing', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--conditions=@portcullis/source',
      '--import',
      'tsx',
      '--test',
      '--test-reporter=tap',
      'examples/conformance/node-test.test.ts',
    ],
    { cwd: docsRoot, timeout: 60_000 },
  )
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1])
  expect(count('tests')).toBeGreaterThan(5)
  expect(count('pass')).toBe(count('tests'))
  expect(count('fail')).toBe(0)
})
