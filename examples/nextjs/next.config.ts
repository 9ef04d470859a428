import { readdirSync, readFileSync } from 'node:fs'
import { join, posix, resolve } from 'node:path'
import type { NextConfig } from 'next'

const packagesDirectory = resolve(import.meta.dirname, '../../packages')

interface ExportsEntry {
  readonly '@portcullis/source'?: string
}

/**
 * Inside this repository the Portcullis packages resolve to their TypeScript sources (the
 * `@portcullis/source` export condition every test uses), so the example builds with no prior
 * `pnpm build`. An application installing the packages from npm needs none of this.
 */
function portcullisSourceAliases(): Record<string, string> {
  const aliases: Record<string, string> = {}
  for (const folder of readdirSync(packagesDirectory)) {
    const manifestPath = join(packagesDirectory, folder, 'package.json')
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      readonly name: string
      readonly exports?: Record<string, ExportsEntry>
    }
    for (const [subpath, entry] of Object.entries(manifest.exports ?? {})) {
      const source = entry['@portcullis/source']
      if (source === undefined) continue
      // Relative to this folder: Turbopack reads an absolute alias as relative to the project.
      aliases[posix.join(manifest.name, subpath)] = `./${posix.join('../../packages', folder, source)}`
    }
  }
  return aliases
}

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `pnpm typecheck` runs tsc over the example (with the package sources); the build does not repeat it.
  typescript: { ignoreBuildErrors: true },
  webpack(config: { resolve: { alias: Record<string, string>; extensionAlias?: Record<string, string[]> } }) {
    for (const [name, path] of Object.entries(portcullisSourceAliases())) {
      config.resolve.alias[`${name}$`] = resolve(import.meta.dirname, path)
    }
    config.resolve.extensionAlias = { '.js': ['.ts', '.js'] }
    return config
  },
}

export default nextConfig
