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
  const readmes = ['packages', 'apps', 'examples', 'tooling'].flatMap((group) => {
    const dir = join(repoRoot, group)
    if (!existsSync(dir)) return []
    return readdirSync(dir)
      .sort()
      .map((name) => join(dir, name, 'README.md'))
      .filter((file) => existsSync(file))
  })
  return [...markdownIn(repoRoot), ...markdownIn(join(repoRoot, 'docs')), ...readmes]
}

/**
 * Where blocks may copy from: docs/examples/ (typechecked with the workspace, tsconfig.typecheck.json),
 * the reference app's sources, which reference-app.md quotes, and the example applications under
 * examples/ (each typechecked, built and tested by its own package).
 */
export function exampleSourceDirs(repoRoot: string): string[] {
  return [
    join(repoRoot, 'docs', 'examples'),
    join(repoRoot, 'apps', 'reference', 'src'),
    join(repoRoot, 'examples'),
  ]
}

/** Every disagreement between the documentation and the files its blocks copy. */
export function checkDocumentation(repoRoot: string): DocExampleProblem[] {
  const sourceDirs = exampleSourceDirs(repoRoot)
  return documentationFiles(repoRoot).flatMap((file) =>
    checkMarkdown(file, readFileSync(file, 'utf8'), sourceDirs),
  )
}

/** Rewrites every marked TypeScript block from its example; returns the files it changed. */
export function syncDocumentation(repoRoot: string): string[] {
  const sourceDirs = exampleSourceDirs(repoRoot)
  const changed: string[] = []
  for (const file of documentationFiles(repoRoot)) {
    const before = readFileSync(file, 'utf8')
    const after = syncMarkdown(file, before, sourceDirs)
    if (after !== before) {
      writeFileSync(file, after)
      changed.push(file)
    }
  }
  return changed
}
