/** The runnable example of a package README and what it prints. */
export interface ReadmeExample {
  /** The only ```js block: an ES module, run as it is with node from an installed copy of the package. */
  readonly code: string
  /** The ```text block after "It prints:", exactly what the example writes to stdout. */
  readonly output: string
}

const FENCE = /^```([a-z]*)\n([\s\S]*?)^```$/gm

/**
 * Finds the README's example: exactly one ```js block, followed by "It prints:" and a ```text block.
 * Anything else is an error naming what is missing, so a README cannot quietly lose its checked example.
 */
export function readmeExample(markdown: string): ReadmeExample {
  const blocks = [...markdown.matchAll(FENCE)].map((match) => ({
    language: match[1] ?? '',
    body: match[2] ?? '',
    end: (match.index ?? 0) + match[0].length,
  }))
  const examples = blocks.filter((block) => block.language === 'js')
  const example = examples[0]
  if (examples.length !== 1 || example === undefined) {
    throw new Error(`a README needs exactly one \`\`\`js example, found ${examples.length}`)
  }
  const after = blocks[blocks.indexOf(example) + 1]
  const between =
    after === undefined ? '' : markdown.slice(example.end, markdown.indexOf('```text', example.end))
  if (after?.language !== 'text' || !/^\s*It prints:\s*$/.test(between)) {
    throw new Error('the ```js example must be followed by "It prints:" and a ```text block')
  }
  return { code: example.body, output: after.body }
}
