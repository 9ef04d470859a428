import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * docs/reference-app.md quotes the app's own source: every `// apps/reference/src/... (excerpt)` block
 * must still be in that file (indentation aside), so the tour never drifts from the code it shows.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url))
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)

describe('docs/reference-app.md', () => {
  it('quotes source that exists, line for line', async () => {
    const doc = await readFile(`${root}docs/reference-app.md`, 'utf8')
    const blocks = [...doc.matchAll(/```ts\n\/\/ (apps\/reference\/src\/\S+) \(excerpt\)\n([\s\S]*?)```/g)]
    expect(blocks.length).toBeGreaterThan(0)
    for (const [, path = '', body = ''] of blocks) {
      const source = lines(await readFile(`${root}${path}`, 'utf8')).join('\n')
      expect(source, path).toContain(lines(body).join('\n'))
    }
  })

  it('shows only screenshots the browser tests write', async () => {
    const doc = await readFile(`${root}docs/reference-app.md`, 'utf8')
    const test = (
      await Promise.all(
        ['browser.test.ts', 'factors-browser.test.ts'].map((file) =>
          readFile(`${root}apps/reference/test/${file}`, 'utf8'),
        ),
      )
    ).join('\n')
    for (const [, name] of doc.matchAll(/\(images\/reference-([a-z-]+)\.png\)/g)) {
      expect(test).toContain(`shot('${name}')`)
    }
  })
})
