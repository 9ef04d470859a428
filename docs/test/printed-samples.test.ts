// The printed samples of the documentation: a ```text block showing what a command prints is marked
// `<!-- output: <name> -->`, and the test that runs that command compares every sample of the name with
// its real output (`printedSamples('<name>')`, see apps/reference/test/support/printed-samples.ts). Here:
// every marked name is compared by some test, and no sample of what the reference app prints goes unmarked.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
const BLOCK = /(?:<!-- output: ([a-z0-9-]+) -->\n)?```text\n([\s\S]*?)^```$/gm

interface TextBlock {
  readonly file: string
  readonly name: string | undefined
  readonly firstLine: string
}

function textBlocks(): TextBlock[] {
  const files = [
    join(repoRoot, 'README.md'),
    ...readdirSync(join(repoRoot, 'docs'))
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file) => join(repoRoot, 'docs', file)),
  ]
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(BLOCK)].map((match) => ({
      file: relative(repoRoot, file),
      name: match[1],
      firstLine: (match[2] ?? '').split('\n')[0] ?? '',
    })),
  )
}

/** The source of every test file of the workspace's packages, apps and examples. */
function testSources(): string {
  const sources: string[] = []
  for (const group of ['apps', 'packages', 'examples', 'tooling']) {
    for (const name of readdirSync(join(repoRoot, group))) {
      const test = join(repoRoot, group, name, 'test')
      if (!existsSync(test)) continue
      for (const file of readdirSync(test, { recursive: true, encoding: 'utf8' })) {
        if (file.endsWith('.test.ts')) sources.push(readFileSync(join(test, file), 'utf8'))
      }
    }
  }
  return sources.join('\n')
}

/**
 * The samples no test compares yet, by file and first line: a new unmarked sample fails this test until
 * it is marked (and compared) or, deliberately, added here.
 */
const NOT_YET_COMPARED = [
  'docs/fastify.md: ConfigurationError: route GET /early carries Portcullis route options (auth) that the portcullis plugin',
  'docs/postgres.md: $ PORTCULLIS_PROTECTOR_KEY_VERSION=2031-02 PORTCULLIS_PROTECTOR_PREVIOUS_KEY_VERSION=2031-01 \\',
  'docs/reference-app.md: WWW-Authenticate: Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", max_age="300"',
  'docs/reference-app.md: $ pnpm --filter @portcullis/reference cli protector rotate',
  'docs/reference-app.md: portcullis reference app could not start: secrets file .../.data/secrets.json has permissions 0644, wider than 0600; run chmod 600 .../.data/secrets.json',
]

describe('the printed samples of README.md and docs/', () => {
  it('each marked sample is compared with the real output by a test', () => {
    const blocks = textBlocks()
    const names = [...new Set(blocks.flatMap((block) => (block.name === undefined ? [] : [block.name])))]
    expect(names).toContain('pnpm-start')
    const tests = testSources()
    expect(names.filter((name) => !tests.includes(`printedSamples('${name}')`))).toEqual([])
  })

  it('every sample of what the reference app prints is marked, and no other sample goes unmarked unnoticed', () => {
    const unmarked = textBlocks().filter((block) => block.name === undefined)
    expect(
      unmarked.filter((block) => block.firstLine.startsWith('portcullis reference app listening')),
    ).toEqual([])
    expect(unmarked.map((block) => `${block.file}: ${block.firstLine}`)).toEqual(NOT_YET_COMPARED)
  })
})
