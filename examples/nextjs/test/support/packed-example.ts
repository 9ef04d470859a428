// The example as a user has it: its files copied into a fresh folder outside the workspace, and the
// Portcullis packages installed there by npm from the tarballs `pnpm pack` made (every other package from
// the registry). Nothing resolves through a workspace link or to a TypeScript source.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { npmInstall, type PackedWorkspace, packWorkspace, tarballDependencies } from '@portcullis/packaging'
import { inject } from 'vitest'
import { type Bundler, exampleRoot } from './next-app.js'

/** What a user copies of the example: the app, its modules, its instrumentation and its Next.js config. */
const EXAMPLE_FILES = ['app', 'lib', 'instrumentation.ts', 'next.config.ts']

/** The tsconfig.json `create-next-app` writes (the example's own extends the repository's). */
const USER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['dom', 'dom.iterable', 'esnext'],
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: 'esnext',
    moduleResolution: 'bundler',
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: 'react-jsx',
    skipLibCheck: true,
    incremental: true,
    plugins: [{ name: 'next' }],
  },
  include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
  exclude: ['node_modules'],
}

interface ExampleManifest {
  readonly name: string
  readonly scripts: Record<string, string>
  readonly dependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
}

export interface PackedExample {
  readonly directory: string
  remove(): Promise<void>
}

/** The workspace's version of a third-party package (the example's tooling that a user installs too). */
async function rootDevDependency(name: string): Promise<string> {
  const root = JSON.parse(await readFile(join(exampleRoot, '../../package.json'), 'utf8')) as {
    devDependencies: Record<string, string>
  }
  const version = root.devDependencies[name]
  if (version === undefined) throw new Error(`the workspace has no ${name}`)
  return version
}

/**
 * The example installed from tarballs: this run's shared install (test/support/packed-setup.ts) unless
 * `workspace` is given, which is then installed in a fresh folder. Packs the packages the example uses
 * (or reuses `workspace`), copies the example into a fresh folder and installs it:
 * its `workspace:*` dependencies become the tarballs, pinned through `overrides` so that no package of
 * ours comes from a registry.
 */
export async function installPackedExample(workspace?: PackedWorkspace): Promise<PackedExample> {
  return workspace === undefined ? packedExample('turbopack') : installFreshExample(workspace)
}

/**
 * The install of this test run (test/support/packed-setup.ts) for `bundler`: nothing to remove, the
 * global setup does. Outside vitest's run, a fresh install.
 */
export async function packedExample(bundler: Bundler = 'turbopack'): Promise<PackedExample> {
  const shared = inject('packedExample')
  if (shared === undefined) return installFreshExample()
  return { directory: shared[bundler], remove: async () => {} }
}

export async function installFreshExample(workspace?: PackedWorkspace): Promise<PackedExample> {
  const manifest = JSON.parse(await readFile(join(exampleRoot, 'package.json'), 'utf8')) as ExampleManifest
  const portcullisPackages = Object.keys(manifest.dependencies).filter((name) =>
    name.startsWith('@portcullis/'),
  )
  const packed = workspace ?? (await packWorkspace({ only: portcullisPackages }))
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-nextjs-'))
  const remove = async () => {
    await rm(directory, { recursive: true, force: true })
    if (workspace === undefined) await packed.remove()
  }
  try {
    const { dependencies: ours, overrides } = tarballDependencies(packed.tarballs)
    const dependencies = Object.fromEntries(
      Object.entries(manifest.dependencies).map(([name, version]) => {
        if (!version.startsWith('workspace:')) return [name, version]
        const tarball = ours[name]
        if (tarball === undefined) throw new Error(`${name} is not a published package`)
        return [name, tarball]
      }),
    )
    const user = {
      name: 'portcullis-nextjs-app',
      version: '0.0.0',
      private: true,
      type: 'module',
      scripts: { build: manifest.scripts.build, start: manifest.scripts.start },
      dependencies,
      // What a TypeScript Next.js application installs for its build.
      devDependencies: {
        typescript: await rootDevDependency('typescript'),
        '@types/node': await rootDevDependency('@types/node'),
        '@types/react': manifest.devDependencies['@types/react'],
        '@types/react-dom': manifest.devDependencies['@types/react-dom'],
      },
      overrides,
    }
    await writeFile(join(directory, 'package.json'), `${JSON.stringify(user, null, 2)}\n`)
    await writeFile(join(directory, 'tsconfig.json'), `${JSON.stringify(USER_TSCONFIG, null, 2)}\n`)
    for (const file of EXAMPLE_FILES) {
      await cp(join(exampleRoot, file), join(directory, file), { recursive: true })
    }
    const resolved = await npmInstall(directory, 240_000)
    // Every Portcullis package came from its tarball, none from a registry.
    for (const [path, from] of resolved) {
      if (/(^|\/)@portcullis\/[^/]+$/.test(path) && !/^file:.*\.tgz$/.test(from)) {
        throw new Error(`${path} was installed from ${from}, not from its tarball`)
      }
    }
    return { directory, remove }
  } catch (error) {
    await remove()
    throw error
  }
}
