import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * docs/reference-app.md quotes the app's own source: each TypeScript block is marked with the region of
 * an app file it copies (`<!-- example: ../apps/reference/src/<file>.ts#<region> -->`), and the docs
 * package's test (docs/test/docs-match-examples.test.ts) requires every block to equal its region, so
 * the tour never drifts from the code it shows. Here: the quotes are the app's own files and regions.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url))

describe('docs/reference-app.md', () => {
  it("quotes regions of the app's own source", async () => {
    const doc = await readFile(`${root}docs/reference-app.md`, 'utf8')
    const quotes = [...doc.matchAll(/<!-- example: \.\.\/(apps\/reference\/src\/\S+?)#(\S+) -->\n```ts\n/g)]
    expect(quotes.length).toBeGreaterThan(0)
    for (const [, path = '', region = ''] of quotes) {
      const source = await readFile(`${root}${path}`, 'utf8')
      expect(source, path).toContain(`// #region ${region}\n`)
      expect(source, path).toContain(`// #endregion ${region}\n`)
    }
  })

  it('shows only screenshots the browser tests write', async () => {
    const doc = await readFile(`${root}docs/reference-app.md`, 'utf8')
    const test = (
      await Promise.all(
        ['browser.test.ts', 'factors-browser.test.ts', 'mcp-browser.test.ts'].map((file) =>
          readFile(`${root}apps/reference/test/${file}`, 'utf8'),
        ),
      )
    ).join('\n')
    for (const [, name] of doc.matchAll(/\(images\/reference-([a-z-]+)\.png\)/g)) {
      // Each picture is written by a test: its `shot(name)`, or its file named in full.
      expect(test.includes(`shot('${name}')`) || test.includes(`'reference-${name}.png'`), name).toBe(true)
    }
  })
})
