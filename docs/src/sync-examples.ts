// `pnpm docs:examples:sync`: rewrites every marked TypeScript block of the documentation from the example
// file (or region) it names, then lists what still disagrees (unmarked blocks, missing files or regions).
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkDocumentation, syncDocumentation } from './documentation-files.js'

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
for (const file of syncDocumentation(repoRoot)) console.log(`rewrote ${relative(repoRoot, file)}`)
const problems = checkDocumentation(repoRoot)
for (const problem of problems) {
  console.error(`${relative(repoRoot, problem.file)}:${problem.line}: ${problem.message}`)
}
process.exitCode = problems.length === 0 ? 0 : 1
