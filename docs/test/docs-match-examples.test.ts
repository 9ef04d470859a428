// Every TypeScript block of the documentation (the root's Markdown files, docs/*.md and every README) is a
// copy of a file, or a marked region of one, under docs/examples/, which `pnpm test` typechecks.

import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { typeScriptBlocks } from '../src/doc-examples.js'
import { checkDocumentation, documentationFiles } from '../src/documentation-files.js'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

describe('the documentation', () => {
  it('has TypeScript blocks to check (the check reads the right files)', () => {
    const files = documentationFiles(repoRoot).map((file) => relative(repoRoot, file))
    expect(files).toContain('docs/postgres.md')
    expect(files).toContain('README.md')
    expect(files).toContain('packages/core/README.md')
    const blocks = documentationFiles(repoRoot).flatMap(
      (file) => typeScriptBlocks(readFileSync(file, 'utf8')).blocks,
    )
    expect(blocks.length).toBeGreaterThan(50)
  })

  it('shows every TypeScript block exactly as its example under docs/examples/ (pnpm docs:examples:sync)', () => {
    const problems = checkDocumentation(repoRoot).map(
      (problem) => `${relative(repoRoot, problem.file)}:${problem.line}: ${problem.message}`,
    )
    expect(problems).toEqual([])
  })
})
