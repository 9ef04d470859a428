// Vitest global setup: the example is packed and installed once per run, and every test file builds and
// starts that one install (a second copy of it for webpack, so that each bundler keeps its `.next`).
import { cp, rm } from 'node:fs/promises'
import type { TestProject } from 'vitest/node'
import { installFreshExample } from './packed-example.js'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const example = await installFreshExample()
  const webpack = `${example.directory}-webpack`
  await cp(example.directory, webpack, { recursive: true, verbatimSymlinks: true })
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
