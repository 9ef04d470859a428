// The test workers keep their module graph from one test file to the next (`isolate: false` in
// vitest.shared.ts). That holds only while no test replaces a module or a global for the files after it:
// this test reads every test file of the workspace and names any that would.
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../../', import.meta.url).pathname
const TOP_LEVEL = ['packages', 'apps', 'tooling', 'docs', 'examples']
const SKIPPED = new Set(['node_modules', 'dist', '.next', '.turbo'])

/** What would leak into the next test file of the same worker. */
export const LEAKING_CALLS = /\bvi\s*\.\s*(mock|doMock|unmock|stubGlobal|stubEnv|resetModules|mocked)\s*\(/

async function testFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => [])
  const found: string[] = []
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue
    const path = join(directory, entry.name)
    if (entry.isDirectory()) found.push(...(await testFiles(path)))
    else if (/\.test\.(ts|tsx|mts)$/.test(entry.name)) found.push(path)
  }
  return found
}

describe('test files sharing a worker', () => {
  it('recognises a module mock and a stubbed global when it sees one', () => {
    expect(LEAKING_CALLS.test("vi.mock('node:fs')")).toBe(true)
    expect(LEAKING_CALLS.test("vi.stubGlobal('fetch', fake)")).toBe(true)
    expect(LEAKING_CALLS.test("vi.stubEnv('TZ', 'UTC')")).toBe(true)
    expect(LEAKING_CALLS.test('vi.fn()')).toBe(false)
    expect(LEAKING_CALLS.test('vi.useFakeTimers()')).toBe(false)
  })

  it('no test file mocks a module or stubs a global', async () => {
    const files = (await Promise.all(TOP_LEVEL.map((top) => testFiles(join(ROOT, top))))).flat()
    expect(files.length).toBeGreaterThan(300)
    const leaking: string[] = []
    for (const file of files) {
      // This file names the calls in its own examples.
      if (file === fileURLToPath(import.meta.url)) continue
      if (LEAKING_CALLS.test(await readFile(file, 'utf8'))) leaking.push(relative(ROOT, file))
    }
    expect(leaking).toEqual([])
  })
})
