// The mechanism that keeps the documentation's TypeScript blocks equal to docs/examples/, on a fixture.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkMarkdown, exampleText, syncMarkdown, typeScriptBlocks } from '../src/doc-examples.js'

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const examplesDir = [`${fixtures}examples`]
const markdownFile = `${fixtures}page.md`
const sample = readFileSync(`${examplesDir}/topic/sample.ts`, 'utf8')
const fence = '```'

function page(...parts: string[]): string {
  return ['# Page', '', ...parts, ''].join('\n')
}

const callBlock = [
  '<!-- example: examples/topic/sample.ts#call -->',
  `${fence}ts`,
  'export const answer = area(6, 7)',
  fence,
]

describe('checkMarkdown', () => {
  it('accepts a block equal to the region its marker names', () => {
    expect(checkMarkdown(markdownFile, page(...callBlock), examplesDir)).toEqual([])
  })

  it('accepts a region inside a function with its indentation removed, and a whole file', () => {
    const markdown = page(
      '<!-- example: examples/topic/sample.ts#body -->',
      `${fence}typescript`,
      'const product = width * height',
      'assert(product >= 0)',
      'return product',
      fence,
      '',
      '<!-- example: examples/topic/sample.ts -->',
      `${fence}ts`,
      exampleText(sample),
      fence,
    )
    expect(checkMarkdown(markdownFile, markdown, examplesDir)).toEqual([])
    expect(exampleText(sample)).not.toContain('#region')
  })

  it('shows the segments of a region opened several times with a `// ...` line between them', () => {
    expect(exampleText(sample, 'outline')).toBe(
      ['export function outline(): string[] {', '// ...', '  return steps', '}'].join('\n'),
    )
    expect(() => exampleText('// #region a\nx\n', 'a')).toThrow('no "// #endregion a" after its #region')
    expect(() => exampleText('x\n// #endregion a\n', 'a')).toThrow('"// #endregion a" without its #region')
  })

  it('refuses a block that drifted from its example, naming the line', () => {
    const drifted = callBlock.map((line) => line.replace('area(6, 7)', 'area(6, 8)'))
    const problems = checkMarkdown(markdownFile, page(...drifted), examplesDir)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatchObject({ file: markdownFile, line: 4 })
    expect(problems[0]?.message).toContain('differs from examples/topic/sample.ts#call')
    expect(problems[0]?.message).toContain('area(6, 8)')
  })

  it('refuses a TypeScript block without a marker, and a marker separated from its fence', () => {
    const problems = checkMarkdown(
      markdownFile,
      page(`${fence}ts`, 'const x = 1', fence, '', callBlock[0] as string, '', ...callBlock.slice(1)),
      examplesDir,
    )
    expect(problems.map((problem) => [problem.line, problem.message.slice(0, 40)])).toEqual([
      [7, 'an example marker that is not directly a'],
      [3, 'a TypeScript block with no marker: put t'],
      [9, 'a TypeScript block with no marker: put t'],
    ])
  })

  it('refuses a missing region, a missing file and a file outside the examples folder', () => {
    const markdown = page(
      '<!-- example: examples/topic/sample.ts#nowhere -->',
      `${fence}ts`,
      fence,
      '<!-- example: examples/topic/missing.ts -->',
      `${fence}ts`,
      fence,
      '<!-- example: doc-examples.test.ts -->',
      `${fence}ts`,
      fence,
    )
    const messages = checkMarkdown(markdownFile, markdown, examplesDir).map((problem) => problem.message)
    expect(messages).toEqual([
      'examples/topic/sample.ts: no "// #region nowhere"',
      'examples/topic/missing.ts does not exist',
      `doc-examples.test.ts is not under ${fixtures}examples`,
    ])
  })

  it('refuses a file inside installed packages or a build output, even under the examples folder', () => {
    const markdown = page(
      '<!-- example: examples/node_modules/next/index.ts -->',
      `${fence}ts`,
      fence,
      '<!-- example: examples/app/.next/types/routes.ts -->',
      `${fence}ts`,
      fence,
    )
    const messages = checkMarkdown(markdownFile, markdown, examplesDir).map((problem) => problem.message)
    expect(messages).toEqual([
      `examples/node_modules/next/index.ts is not under ${fixtures}examples`,
      `examples/app/.next/types/routes.ts is not under ${fixtures}examples`,
    ])
  })

  it('ignores other languages, and TypeScript and markers shown inside another fence', () => {
    const markdown = page(
      '````md',
      callBlock[0] as string,
      `${fence}ts`,
      'not checked',
      fence,
      '````',
      '',
      `${fence}sh`,
      'pnpm test',
      fence,
    )
    expect(typeScriptBlocks(markdown).blocks).toEqual([])
    expect(checkMarkdown(markdownFile, markdown, examplesDir)).toEqual([])
  })
})

describe('syncMarkdown', () => {
  it('rewrites a drifted block, keeping the fence indentation of a list item, and then passes the check', () => {
    const markdown = page(
      '- Step one:',
      '',
      '  <!-- example: examples/topic/sample.ts#body -->',
      `  ${fence}ts`,
      '  return 0',
      `  ${fence}`,
      '',
      ...callBlock.map((line) => line.replace('area(6, 7)', 'old()')),
      '',
      `${fence}ts`,
      'const unmarked = true',
      fence,
    )
    const synced = syncMarkdown(markdownFile, markdown, examplesDir)
    expect(synced).toContain(
      [
        '  ```ts',
        '  const product = width * height',
        '  assert(product >= 0)',
        '  return product',
        '  ```',
      ].join('\n'),
    )
    expect(synced).toContain('export const answer = area(6, 7)')
    expect(synced).toContain('const unmarked = true')
    expect(checkMarkdown(markdownFile, synced, examplesDir).map((problem) => problem.line)).toEqual([17])
  })
})
