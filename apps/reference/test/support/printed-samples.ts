// The documentation's printed samples: a ```text block right after `<!-- output: <name> -->` in the
// README or a page of docs/ shows what a command prints. The test that runs the command compares each
// sample of that name with what it really printed (docs/test/printed-samples.test.ts requires every
// named sample to be compared by some test).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

const root = fileURLToPath(new URL('../../../../', import.meta.url))

export interface PrintedSample {
  /** The file, relative to the repository root. */
  readonly file: string
  readonly lines: readonly string[]
}

const SAMPLE = /<!-- output: ([a-z0-9-]+) -->\n```text\n([\s\S]*?)^```$/gm

/** Every sample called `name` in README.md and docs/*.md. */
export function printedSamples(name: string): PrintedSample[] {
  const files = [
    join(root, 'README.md'),
    ...readdirSync(join(root, 'docs'))
      .filter((file) => file.endsWith('.md'))
      .map((file) => join(root, 'docs', file)),
  ]
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(SAMPLE)]
      .filter((match) => match[1] === name)
      .map((match) => ({
        file: relative(root, file),
        lines: (match[2] ?? '').replace(/\n$/, '').split('\n'),
      })),
  )
}

/** One shown line as a pattern: `...` stands for any text, `<20 characters>` for 20 non-blank ones. */
function linePattern(line: string): RegExp {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(
    `^${escaped.replace(/\\\.\\\.\\\./g, '.*').replace(/<(\d+) characters>/g, (_all, count: string) => `\\S{${count}}`)}$`,
  )
}

/**
 * Checks that `sample` is what was printed: after `normalize` (applied to the sample's lines and to the
 * output's, for what differs from run to run: paths, ports, timings), its lines are consecutive lines of
 * `output`. A line that is only `...` stands for any number of lines (an abridged sample); inside a line,
 * `...` stands for any text and `<N characters>` for N non-blank characters (a generated secret).
 */
export function expectPrinted(
  sample: PrintedSample,
  output: string,
  normalize: (line: string) => string = (line) => line,
): void {
  const printed = output.split('\n').map(normalize)
  const shown = sample.lines.map(normalize)
  const matches = (start: number): boolean => {
    let at = start
    let gap = false
    for (const line of shown) {
      if (line.trim() === '...') {
        gap = true
        continue
      }
      const pattern = linePattern(line)
      let found = -1
      if (gap) {
        for (let index = at; index < printed.length && found === -1; index += 1) {
          if (pattern.test(printed[index] ?? '')) found = index
        }
      } else if (pattern.test(printed[at] ?? '')) found = at
      if (found === -1) return false
      at = found + 1
      gap = false
    }
    return true
  }
  expect(
    printed.some((_line, index) => matches(index)),
    `${sample.file}: the printed sample differs from what was printed\n--- sample\n${shown.join('\n')}\n--- printed\n${printed.join('\n')}`,
  ).toBe(true)
}
