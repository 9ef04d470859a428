import { readdirSync, readFileSync } from 'node:fs'

/** A package the repository publishes: a folder under packages/ whose package.json is not private. */
export interface PublishedPackage {
  readonly name: string
  /** The package folder, with a trailing slash. */
  readonly root: URL
}

export function publishedPackages(repoRoot: URL): PublishedPackage[] {
  const packagesDir = new URL('packages/', repoRoot)
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => new URL(`${entry.name}/`, packagesDir))
    .flatMap((root) => {
      let manifest: { name: string; private?: boolean }
      try {
        manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'))
      } catch {
        return []
      }
      return manifest.private === true ? [] : [{ name: manifest.name, root }]
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
}
