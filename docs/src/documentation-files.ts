import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { checkMarkdown, type DocExampleProblem, syncMarkdown } from './doc-examples.js'

/** The Markdown files whose TypeScript blocks must copy examples: the root's, docs/ and every README. */
export function documentationFiles(repoRoot: string): string[] {
  const markdownIn = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((name) => name.endsWith('.md'))
          .sort()
          .map((name) => join(dir, name))
      : []
  const readmes = ['packages', 'apps', 'tooling'].flatMap((group) => {
    const dir = join(repoRoot, group)
    if (!existsSync(dir)) return []
    return readdirSync(dir)
      .sort()
      .map((name) => join(dir, name, 'README.md'))
      .filter((file) => existsSync(file))
  })
  return [...markdownIn(repoRoot), ...markdownIn(join(repoRoot, 'docs')), ...readmes]
}

/** Every disagreement between the documentation and docs/examples/. */
export function checkDocumentation(repoRoot: string): DocExampleProblem[] {
  const examplesDir = join(repoRoot, 'docs', 'examples')
  return documentationFiles(repoRoot).flatMap((file) =>
    checkMarkdown(file, readFileSync(file, 'utf8'), examplesDir),
  )
}

/** Rewrites every marked TypeScript block from its example; returns the files it changed. */
export function syncDocumentation(repoRoot: string): string[] {
  const examplesDir = join(repoRoot, 'docs', 'examples')
  const changed: string[] = []
  for (const file of documentationFiles(repoRoot)) {
    const before = readFileSync(file, 'utf8')
    const after = syncMarkdown(file, before, examplesDir)
    if (after !== before) {
      writeFileSync(file, after)
      changed.push(file)
    }
  }
  return changed
}
