import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildPackages } from './build.js'
import { type PackedPackage, pack } from './tarball.js'
import { publishedPackages, type WorkspacePackage } from './workspace.js'

/** Every published package, built and packed into a temporary folder. */
export interface PackedWorkspace {
  readonly packages: readonly WorkspacePackage[]
  readonly packed: readonly PackedPackage[]
  /** `name -> tarball path`. */
  readonly tarballs: ReadonlyMap<string, string>
  remove(): Promise<void>
}

/**
 * Builds every published package (turbo restores unchanged ones from its cache) and packs each with
 * `pnpm pack`, as `pnpm publish` would, into a fresh folder under the OS temporary folder.
 */
export async function packWorkspace(): Promise<PackedWorkspace> {
  const packages = await publishedPackages()
  await buildPackages(packages)
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-pack-'))
  const remove = () => rm(directory, { recursive: true, force: true })
  try {
    const packed = await Promise.all(packages.map((entry) => pack(entry, directory)))
    return { packages, packed, tarballs: new Map(packed.map((entry) => [entry.name, entry.tarball])), remove }
  } catch (error) {
    await remove()
    throw error
  }
}
