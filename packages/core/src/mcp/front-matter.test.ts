import { describe, expect, it } from 'vitest'
import { parseFrontMatter } from './front-matter.js'

describe('parseFrontMatter', () => {
  it('reads plain, quoted and block scalars', () => {
    const text = [
      '---',
      'name: git-workflow',
      'description: "Branching: rebase, then merge"',
      "title: 'It''s fine'",
      'notes: plain # a comment',
      'long: >',
      '  folded',
      '  text',
      'literal: |',
      '  line one',
      '  line two',
      'metadata:',
      '  nested: ignored',
      '---',
      '# Body',
    ].join('\n')
    expect(parseFrontMatter(text)).toEqual({
      name: 'git-workflow',
      description: 'Branching: rebase, then merge',
      title: "It's fine",
      notes: 'plain',
      long: 'folded text',
      literal: 'line one\nline two',
      metadata: '',
    })
  })

  it('accepts CRLF line ends and a BOM', () => {
    expect(parseFrontMatter('\uFEFF---\r\nname: x\r\n---\r\nbody')).toEqual({ name: 'x' })
  })

  it('answers undefined without an opening or closing fence', () => {
    expect(parseFrontMatter('# no front matter')).toBeUndefined()
    expect(parseFrontMatter('---\nname: x\n')).toBeUndefined()
  })
})
