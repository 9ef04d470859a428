import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildPackages } from './build.js'
import { withBuildLock } from './build-lock.js'
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

/** `names` and every Portcullis package they depend on (dependencies and peers), transitively. */
function withDependencies(all: readonly WorkspacePackage[], names: readonly string[]): WorkspacePackage[] {
  const byName = new Map(all.map((entry) => [entry.name, entry]))
  const wanted = new Set<string>()
  const visit = (name: string) => {
    const entry = byName.get(name)
    if (entry === undefined) throw new Error(`${name} is not a published package of the workspace`)
    if (wanted.has(name)) return
    wanted.add(name)
    const manifest = entry.manifest as { dependencies?: object; peerDependencies?: object }
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (byName.has(dependency)) visit(dependency)
    }
  }
  for (const name of names) visit(name)
  return all.filter((entry) => wanted.has(entry.name))
}

/**
 * Builds the published packages (turbo restores unchanged ones from its cache) and packs each with
 * `pnpm pack`, as `pnpm publish` would, into a fresh folder under the OS temporary folder. `only`: just
 * these packages and the Portcullis packages they depend on (what an application of them installs).
 */
export async function packWorkspace(
  options: { readonly only?: readonly string[] } = {},
): Promise<PackedWorkspace> {
  const published = await publishedPackages()
  const packages = options.only === undefined ? published : withDependencies(published, options.only)
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-pack-'))
  const remove = () => rm(directory, { recursive: true, force: true })
  try {
    // Built and packed under the workspace's build lock: no other build writes `dist/` meanwhile.
    const packed = await withBuildLock(async () => {
      await buildPackages(packages)
      return Promise.all(packages.map((entry) => pack(entry, directory)))
    })
    return { packages, packed, tarballs: new Map(packed.map((entry) => [entry.name, entry.tarball])), remove }
  } catch (error) {
    await remove()
    throw error
  }
}
