import { describe, expect, it } from 'vitest'
import { expectPrinted, printedSamples } from './support/printed-samples.js'

const printed =
  'listening\ndata: one; two (applied 1, 2)\nopen:\n  /a\n  /b\n  alice  abcdefghijabcdefghij\nbye\n'
const sample = (lines: string[]) => ({ file: 'doc.md', lines })

describe('comparing a printed sample with what was printed', () => {
  it('accepts consecutive lines, `...` for any text in a line or any lines, <N characters> for a secret', () => {
    expectPrinted(sample(['listening', 'data: one; ... (applied 1, 2)']), printed)
    expectPrinted(sample(['open:', '...', '  alice  <20 characters>', 'bye']), printed)
  })

  it('refuses a changed line, a skipped line without `...`, a wrong length and a regex in the text', () => {
    expect(() => expectPrinted(sample(['data: one; two (applied 1, 2, 3)']), printed)).toThrow()
    expect(() => expectPrinted(sample(['open:', '  /b']), printed)).toThrow()
    expect(() => expectPrinted(sample(['  alice  <19 characters>']), printed)).toThrow()
    expect(() => expectPrinted(sample(['listen.ng']), printed)).toThrow()
    expect(() => expectPrinted(sample(['bye', 'listening']), printed)).toThrow()
  })

  it('finds the samples of `pnpm start` in the README and the docs', () => {
    expect(printedSamples('pnpm-start').map((found) => found.file)).toEqual([
      'README.md',
      'docs/getting-started.md',
      'docs/reference-app.md',
    ])
  })
})
