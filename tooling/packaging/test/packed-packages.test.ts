// The packages as a user installs them: built, packed with `pnpm pack`, installed with npm into a fresh
// project outside the workspace, and run there with node against a real Postgres: the CLI's migrate, a
// minimal application (register, login, a session route, an API-key route) and every README example.
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { MIGRATIONS } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CommandResult, cleanEnvironment, run } from '../src/commands.js'
import { type ConsumerProject, installConsumer } from '../src/consumer.js'
import { exportTargets, missingTargets, SOURCE_CONDITION } from '../src/exports-map.js'
import { type PackedWorkspace, packWorkspace, TEST_RUN_DIRECTORY_VARIABLE } from '../src/packed-workspace.js'
import { readmeExample } from '../src/readme.js'
import type { PackedPackage } from '../src/tarball.js'
import { publishedPackages } from '../src/workspace.js'

const packages = await publishedPackages()
let workspace: PackedWorkspace | undefined
let packed: PackedPackage[] = []
let consumer: ConsumerProject | undefined
let database: TestDatabase | undefined

beforeAll(async () => {
  workspace = await packWorkspace()
  packed = [...workspace.packed]
  consumer = await installConsumer(workspace.tarballs)
  database = await createTestDatabase()
})

afterAll(async () => {
  await consumer?.remove()
  await workspace?.remove()
  await database?.close()
})

function installed(): ConsumerProject {
  if (consumer === undefined) throw new Error('the consumer project was not installed')
  return consumer
}

/** Runs `node <file>` in the consumer project, bounded, with only the environment a user would set. */
function node(file: string, env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
  return run(process.execPath, [file], {
    cwd: installed().directory,
    env: cleanEnvironment(env),
    timeoutMs: 60_000,
  })
}

/**
 * Imports each specifier; `loaded` when it exports something, `needs <package>` when only a package it
 * imports is missing, the error otherwise.
 */
const IMPORT_EVERY_SUBPATH = `const outcomes = {}
for (const specifier of SPECIFIERS) {
  try {
    const loaded = await import(specifier)
    outcomes[specifier] = Object.keys(loaded).length > 0 ? 'loaded' : 'exports nothing'
  } catch (error) {
    const missing = /^Cannot find package '([^']+)'/.exec(error.message)
    outcomes[specifier] = missing === null ? error.message : 'needs ' + missing[1]
  }
}
console.log(JSON.stringify(outcomes))
`

/** The optional peer dependency a subpath is named after (`@portcullis/conformance/vitest` -> `vitest`). */
function optionalPeerOf(specifier: string): string | undefined {
  const owner = packed.find((entry) => specifier.startsWith(`${entry.name}/`))
  const optional = Object.entries(
    (owner?.manifest.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>,
  )
    .filter(([, meta]) => meta.optional === true)
    .map(([peer]) => peer)
  const subpath = owner === undefined ? '' : specifier.slice(owner.name.length + 1)
  return optional.find((peer) => peer === subpath)
}

function databaseUrl(): string {
  if (database === undefined) throw new Error('no test database')
  return database.connectionString
}

describe('every tarball', () => {
  it.each(packages.map((entry) => entry.name))(
    '%s carries README.md, LICENSE and every file its exports map names, and no source condition',
    (name) => {
      const tarball = packed.find((entry) => entry.name === name)
      expect(tarball).toBeDefined()
      const files = new Set(tarball?.files.keys())
      expect(files).toContain('README.md')
      expect(files).toContain('LICENSE')
      const exportsField = tarball?.manifest.exports
      expect(exportTargets(exportsField).length).toBeGreaterThan(0)
      expect(missingTargets(exportsField, files)).toEqual([])
      expect(JSON.stringify(exportsField)).not.toContain(SOURCE_CONDITION)
      // pnpm published publishConfig.exports as the exports
      const workspace = packages.find((entry) => entry.name === name)
      expect(exportsField).toEqual(workspace?.manifest.publishConfig?.exports)
      const bin = tarball?.manifest.bin
      for (const target of typeof bin === 'object' && bin !== null ? Object.values(bin) : []) {
        expect(files, `bin ${String(target)}`).toContain(String(target).replace(/^\.\//, ''))
      }
      expect([...files].filter((file) => file.startsWith('src/') || file.endsWith('.test.js'))).toEqual([])
      // The tarball has no src/: a source map is useful only when it carries its sources inline.
      const maps = [...files].filter((file) => file.endsWith('.js.map'))
      expect(maps.length).toBeGreaterThan(0)
      const withoutSources = maps.filter((file) => {
        const map = JSON.parse(tarball?.files.get(file)?.toString('utf8') ?? '{}') as {
          sources?: string[]
          sourcesContent?: (string | null)[]
        }
        return (
          map.sourcesContent?.length !== map.sources?.length ||
          (map.sourcesContent ?? []).some((content) => typeof content !== 'string' || content === '')
        )
      })
      expect(withoutSources).toEqual([])
    },
  )
})

describe('one packing per test run', () => {
  it('a later caller of the run gets the tarballs the first one packed, read back, not packed again', async () => {
    const run = await mkdtemp(join(tmpdir(), 'portcullis-test-run-'))
    const previous = process.env[TEST_RUN_DIRECTORY_VARIABLE]
    try {
      // the run's folder as its first caller leaves it: the tarballs, then the index
      await mkdir(join(run, 'packed'))
      const index: Record<string, string> = {}
      for (const entry of packed) {
        index[entry.name] = basename(entry.tarball)
        await copyFile(entry.tarball, join(run, 'packed', basename(entry.tarball)))
      }
      await writeFile(join(run, 'packed', 'packed.json'), JSON.stringify(index))
      const before = await Promise.all(
        packed.map((entry) => stat(join(run, 'packed', basename(entry.tarball)))),
      )
      process.env[TEST_RUN_DIRECTORY_VARIABLE] = run
      const later = await packWorkspace({ only: ['@portcullis/express'] })
      // every published package (a superset of what `only` names), from the run's folder, unchanged
      expect(later.packed.map((entry) => entry.name)).toEqual(packages.map((entry) => entry.name))
      for (const [i, entry] of later.packed.entries()) {
        const first = packed[i]
        expect(entry.tarball).toBe(join(run, 'packed', basename(first?.tarball ?? '')))
        expect(entry.manifest).toEqual(first?.manifest)
        expect([...entry.files.keys()]).toEqual([...(first?.files.keys() ?? [])])
        expect((await stat(entry.tarball)).mtimeMs).toBe(before[i]?.mtimeMs)
      }
      await later.remove()
      // the run removes its tarballs when it ends, not a caller
      expect((await stat(join(run, 'packed', 'packed.json'))).isFile()).toBe(true)
    } finally {
      if (previous === undefined) delete process.env[TEST_RUN_DIRECTORY_VARIABLE]
      else process.env[TEST_RUN_DIRECTORY_VARIABLE] = previous
      await rm(run, { recursive: true, force: true })
    }
  })
})

describe('the installed project', () => {
  it('got every package from its tarball, one copy each, none from a registry', () => {
    // A package's own dependencies may nest below it (an exact pin the registry has moved past): only the
    // install paths that are a Portcullis package themselves count.
    const ours = [...installed().resolved].filter(([path]) => /(^|\/)@portcullis\/[^/]+$/.test(path))
    expect(ours.map(([path]) => path).sort()).toEqual(packages.map((entry) => entry.name))
    for (const [path, resolved] of ours) expect(resolved, path).toMatch(/^file:.*\.tgz$/)
  })

  it('imports every exported subpath of every package with node', async () => {
    const specifiers = packed.flatMap((entry) =>
      [...new Set(exportTargets(entry.manifest.exports).map((target) => target.subpath))].map(
        (subpath) => `${entry.name}${subpath.slice(1)}`,
      ),
    )
    const script = join(installed().directory, 'import-every-subpath.mjs')
    await writeFile(script, IMPORT_EVERY_SUBPATH.replace('SPECIFIERS', JSON.stringify(specifiers)))
    const result = await node(script)
    expect(result.stderr).toBe('')
    const outcomes = JSON.parse(result.stdout) as Record<string, string>
    // a subpath that needs an optional peer dependency loads once the application installs that peer
    const expected = Object.fromEntries(
      specifiers.map((specifier) => {
        const peer = optionalPeerOf(specifier)
        return [specifier, peer === undefined ? 'loaded' : `needs ${peer}`]
      }),
    )
    expect(outcomes).toEqual(expected)
    expect(Object.values(expected).filter((outcome) => outcome === 'loaded').length).toBeGreaterThan(20)
  })

  it('migrates a real Postgres with portcullis-postgres, then the minimal app signs in and serves its routes', async () => {
    const { directory } = installed()
    const env = { DATABASE_URL: databaseUrl() }
    const migrate = await run(join(directory, 'node_modules', '.bin', 'portcullis-postgres'), ['migrate'], {
      cwd: directory,
      env: cleanEnvironment(env),
      timeoutMs: 60_000,
    })
    expect(migrate.code, migrate.stderr).toBe(0)
    expect(`${migrate.stdout}${migrate.stderr}`).not.toContain(databaseUrl())
    // Every migration, the generated ones too, comes from the compiled code: the tarball has no drizzle/.
    const versions = MIGRATIONS.map((migration) => migration.version)
    expect(migrate.stdout).toContain(`applied ${versions.join(', ')}; schema at version ${versions.at(-1)}`)
    const postgres = packed.find((entry) => entry.name === '@portcullis/postgres')
    expect([...(postgres?.files.keys() ?? [])].filter((file) => !/^(dist|bin)\//.test(file)).sort()).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ])
    const status = await run(join(directory, 'node_modules', '.bin', 'portcullis-postgres'), ['status'], {
      cwd: directory,
      env: cleanEnvironment(env),
      timeoutMs: 60_000,
    })
    expect(status.code, status.stdout).toBe(0)

    await copyFile(new URL('../fixtures/consumer-app.mjs', import.meta.url), join(directory, 'app.mjs'))
    const app = await node('app.mjs', env)
    expect(app.code, app.stderr).toBe(0)
    expect(JSON.parse(app.stdout)).toEqual({
      migrations: { applied: true, pending: 0 },
      register: 201,
      login: 200,
      sessionCookie: '__Host-portcullis-session',
      me: { status: 200, sameAccount: true },
      anonymous: { status: 401, code: 'authentication.required' },
      apiKey: { status: 200, owner: 'svc-pack' },
      forgedKey: { status: 401, code: 'authentication.required' },
    })
  })
})

describe('every README example', () => {
  it.each(packages.map((entry) => [entry.name, entry.directory] as const))(
    '%s: runs from the installed package and prints what its README says',
    async (name) => {
      const tarball = packed.find((entry) => entry.name === name)
      const readme = tarball?.files.get('README.md')?.toString('utf8') ?? ''
      const example = readmeExample(readme)
      const file = `readme-${name.split('/')[1]}.mjs`
      await writeFile(join(installed().directory, file), example.code)
      const result = await node(file, { DATABASE_URL: databaseUrl() })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe(example.output)
    },
  )
})
