import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file is `tooling/packaging/src/workspace.ts`). */
export const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly license?: string
  readonly files?: readonly string[]
  readonly bin?: string | Readonly<Record<string, string>>
  readonly exports?: unknown
  readonly publishConfig?: { readonly exports?: unknown }
}

export interface WorkspacePackage {
  readonly name: string
  readonly directory: string
  readonly manifest: Manifest
}

/** Every package under `packages/` that is not `private`: what `pnpm publish` would publish. */
export async function publishedPackages(): Promise<WorkspacePackage[]> {
  const root = join(WORKSPACE_ROOT, 'packages')
  const found: WorkspacePackage[] = []
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const directory = join(root, entry.name)
    const manifest = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8')) as Manifest
    if (manifest.private !== true) found.push({ name: manifest.name, directory, manifest })
  }
  return found.sort((a, b) => a.name.localeCompare(b.name))
}
