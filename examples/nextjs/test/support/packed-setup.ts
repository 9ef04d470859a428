// Vitest global setup: the example is packed and installed once per run, and every test file builds and
// starts that one install (a second copy of it for webpack, so that each bundler keeps its `.next`).
import { execFile } from 'node:child_process'
import { cp, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { installFreshExample } from './packed-example.js'

/**
 * A copy of the installed example whose node_modules files are hard links to the first (`cp -al`: a
 * fraction of a second for its 400 MB; a build writes new files there, never into an installed one), the
 * project's own files copied; a plain copy where the system's cp has no `-l` or cannot link.
 */
async function linkedCopy(from: string, to: string): Promise<void> {
  await mkdir(to)
  for (const entry of await readdir(from)) {
    if (entry === 'node_modules') {
      try {
        await promisify(execFile)('cp', ['-al', join(from, entry), join(to, entry)])
        continue
      } catch {
        await rm(join(to, entry), { recursive: true, force: true })
      }
    }
    await cp(join(from, entry), join(to, entry), { recursive: true, verbatimSymlinks: true })
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const example = await installFreshExample()
  const webpack = `${example.directory}-webpack`
  await linkedCopy(example.directory, webpack)
  project.provide('packedExample', { turbopack: example.directory, webpack })
  return async () => {
    await rm(webpack, { recursive: true, force: true })
    await example.remove()
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The installed example's folder for each bundler (see test/support/packed-setup.ts). */
    packedExample: { readonly turbopack: string; readonly webpack: string }
  }
}
