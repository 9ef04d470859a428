import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildPackages } from './build.js'
import { withBuildLock } from './build-lock.js'
import { type PackedPackage, pack, readPackedPackage } from './tarball.js'
import { publishedPackages, type WorkspacePackage } from './workspace.js'

/**
 * The folder of the current `pnpm test` run (set by its wrapper, `tooling/database/src/test-run`, and
 * removed when the run ends). Under it, every published package is built and packed once for the whole
 * run: the pack test and the Next.js example install the same tarballs.
 */
export const TEST_RUN_DIRECTORY_VARIABLE = 'PORTCULLIS_TEST_RUN_DIR'

/** Every published package, built and packed into a temporary folder. */
export interface PackedWorkspace {
  readonly packages: readonly WorkspacePackage[]
  readonly packed: readonly PackedPackage[]
  /** `name -> tarball path`. */
  readonly tarballs: ReadonlyMap<string, string>
  /** Removes the tarballs; nothing for the run's shared ones (the run removes them when it ends). */
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

function workspaceOf(
  packages: readonly WorkspacePackage[],
  packed: readonly PackedPackage[],
  remove: () => Promise<void>,
): PackedWorkspace {
  return { packages, packed, tarballs: new Map(packed.map((entry) => [entry.name, entry.tarball])), remove }
}

/** Built and packed under the workspace's build lock: no other build writes `dist/` meanwhile. */
async function buildAndPack(
  packages: readonly WorkspacePackage[],
  directory: string,
): Promise<PackedPackage[]> {
  await buildPackages(packages)
  return Promise.all(packages.map((entry) => pack(entry, directory)))
}

/** What the run's packed folder records once every tarball is in it: `name -> tarball file name`. */
const PACKED_INDEX = 'packed.json'

/**
 * The run's tarballs: packed by the first caller of the run (under the build lock), read back by every
 * later one. The index is written last, so a folder without it (a caller that failed) is packed again.
 */
async function runPackedWorkspace(runDirectory: string): Promise<PackedWorkspace> {
  const packages = await publishedPackages()
  const directory = join(runDirectory, 'packed')
  const packed = await withBuildLock(async () => {
    const index = await readFile(join(directory, PACKED_INDEX), 'utf8').catch(() => undefined)
    if (index !== undefined) {
      const files = JSON.parse(index) as Record<string, string>
      return Promise.all(
        packages.map((entry) => {
          const file = files[entry.name]
          if (file === undefined) throw new Error(`${entry.name} is missing from ${directory}`)
          return readPackedPackage(entry.name, join(directory, file))
        }),
      )
    }
    await rm(directory, { recursive: true, force: true })
    await mkdir(directory, { recursive: true })
    const made = await buildAndPack(packages, directory)
    const files = Object.fromEntries(
      made.map((entry) => [entry.name, entry.tarball.slice(directory.length + 1)]),
    )
    await writeFile(join(directory, `${PACKED_INDEX}.partial`), `${JSON.stringify(files, null, 2)}\n`)
    await rename(join(directory, `${PACKED_INDEX}.partial`), join(directory, PACKED_INDEX))
    return made
  })
  return workspaceOf(packages, packed, async () => {})
}

/**
 * Builds the published packages (turbo restores unchanged ones from its cache) and packs each with
 * `pnpm pack`, as `pnpm publish` would. Under `pnpm test` (`PORTCULLIS_TEST_RUN_DIR`), every published
 * package is built and packed once for the whole run, and every caller gets those tarballs (with `only`
 * too: they include what it names); otherwise into a fresh folder under the OS temporary folder, `only`:
 * just these packages and the Portcullis packages they depend on (what an application of them installs).
 */
export async function packWorkspace(
  options: { readonly only?: readonly string[] } = {},
): Promise<PackedWorkspace> {
  const runDirectory = process.env[TEST_RUN_DIRECTORY_VARIABLE]
  if (runDirectory) return runPackedWorkspace(runDirectory)
  const published = await publishedPackages()
  const packages = options.only === undefined ? published : withDependencies(published, options.only)
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-pack-'))
  const remove = () => rm(directory, { recursive: true, force: true })
  try {
    const packed = await withBuildLock(() => buildAndPack(packages, directory))
    return workspaceOf(packages, packed, remove)
  } catch (error) {
    await remove()
    throw error
  }
}
