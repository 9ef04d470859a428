// What the published packages promise before anything is packed: the exports they publish, the files
// they list, their LICENSE and a README with a checked example. Plus the helpers the pack test relies on,
// shown able to fail.
import { existsSync } from 'node:fs'
import { readFile, realpath } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  exportTargets,
  missingTargets,
  SOURCE_CONDITION,
  withoutSourceCondition,
} from '../src/exports-map.js'
import { readmeExample } from '../src/readme.js'
import { publishedPackages, WORKSPACE_ROOT } from '../src/workspace.js'

const packages = await publishedPackages()

/** npm's install-time lifecycle scripts: what runs on a user's machine during `npm install`. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall']

/** Where Node would find `name` from `directory` (node_modules of it and of every parent). */
async function installedPackage(directory: string, name: string): Promise<string | undefined> {
  for (let dir = directory; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return realpath(candidate)
    if (dirname(dir) === dir) return undefined
  }
}

/** Every package a user's install of `directory` brings (dependencies and optional ones, transitively). */
async function productionTree(directory: string): Promise<Map<string, Record<string, unknown>>> {
  const seen = new Map<string, Record<string, unknown>>()
  const visit = async (from: string, manifest: Record<string, Record<string, string> | undefined>) => {
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      if (name.startsWith('@portcullis/')) continue
      const found = await installedPackage(from, name)
      if (found === undefined || seen.has(found)) continue
      const dependency = JSON.parse(await readFile(join(found, 'package.json'), 'utf8'))
      seen.set(found, dependency)
      await visit(found, dependency)
    }
  }
  await visit(directory, JSON.parse(await readFile(join(directory, 'package.json'), 'utf8')))
  return seen
}

describe('every published package', () => {
  it('is one of the adapters, the capability packages, the authorization server, the HTTP layer and core (a new package must be added here on purpose)', () => {
    expect(packages.map((entry) => entry.name)).toEqual([
      '@portcullis/argon2',
      '@portcullis/authorization-server',
      '@portcullis/conformance',
      '@portcullis/core',
      '@portcullis/express',
      '@portcullis/fastify',
      '@portcullis/hono',
      '@portcullis/http',
      '@portcullis/mail',
      '@portcullis/opentelemetry',
      '@portcullis/passkeys',
      '@portcullis/password-blocklist',
      '@portcullis/postgres',
      '@portcullis/totp',
    ])
  })

  it.each(packages.map((entry) => [entry.name, entry] as const))(
    "%s installs nothing that runs a script on the user's machine (no preinstall, install or postinstall in its dependency tree)",
    async (_name, entry) => {
      const tree = await productionTree(entry.directory)
      const dependencies = Object.keys(
        (entry.manifest as { dependencies?: object }).dependencies ?? {},
      ).filter((name) => !name.startsWith('@portcullis/'))
      // The walk reached every direct dependency, so a script anywhere below it would be seen.
      const reached = new Set([...tree.values()].map((manifest) => manifest.name))
      expect(dependencies.filter((name) => !reached.has(name))).toEqual([])
      const running = [...tree.values()]
        .filter((manifest) => {
          const scripts = (manifest.scripts ?? {}) as Record<string, string>
          return INSTALL_SCRIPTS.some((script) => script in scripts)
        })
        .map((manifest) => `${manifest.name}@${manifest.version}`)
      expect(running).toEqual([])
    },
  )

  it.each(packages.map((entry) => [entry.name, entry] as const))(
    '%s publishes its exports without the source condition (publishConfig.exports)',
    (_name, entry) => {
      const published = entry.manifest.publishConfig?.exports
      expect(published).toEqual(withoutSourceCondition(entry.manifest.exports))
      expect(
        exportTargets(published).filter((target) => target.conditions.includes(SOURCE_CONDITION)),
      ).toEqual([])
      // the workspace keeps resolving its sources through the condition
      expect(exportTargets(entry.manifest.exports).some((t) => t.conditions.includes(SOURCE_CONDITION))).toBe(
        true,
      )
    },
  )

  it.each(packages.map((entry) => [entry.name, entry] as const))(
    '%s lists README.md and LICENSE in files, and its LICENSE is the repository one',
    async (_name, entry) => {
      expect(entry.manifest.files).toEqual(expect.arrayContaining(['README.md', 'LICENSE']))
      expect(entry.manifest.license).toBe('MIT')
      const root = await readFile(join(WORKSPACE_ROOT, 'LICENSE'), 'utf8')
      expect(root).toMatch(/^MIT License\n/)
      expect(await readFile(join(entry.directory, 'LICENSE'), 'utf8')).toBe(root)
    },
  )

  it.each(packages.map((entry) => [entry.name, entry] as const))(
    '%s has a README naming it, with the install line and one example with its output',
    async (name, entry) => {
      const readme = await readFile(join(entry.directory, 'README.md'), 'utf8')
      expect(readme.startsWith(`# ${name}\n`)).toBe(true)
      expect(readme).toMatch(new RegExp(`npm install [^\\n]*${name.replace('/', '\\/')}`))
      expect(readme).toMatch(/docs\/[a-z-]+\.md/)
      // relative links do not work on a registry page
      expect(readme).not.toMatch(/\]\((?!https?:)[^)]*\)/)
      const example = readmeExample(readme)
      expect(example.code).toContain(`from '${name}`)
      expect(example.output.trim()).not.toBe('')
    },
  )
})

describe('the checks of the pack test can fail', () => {
  it('finds a target that is missing from the files, with the conditions leading to it', () => {
    const exportsField = {
      '.': { [SOURCE_CONDITION]: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './extra': './dist/extra.js',
    }
    const files = new Set(['dist/index.d.ts', 'dist/index.js'])
    expect(missingTargets(exportsField, files)).toEqual([
      { subpath: '.', conditions: [SOURCE_CONDITION], target: './src/index.ts' },
      { subpath: './extra', conditions: [], target: './dist/extra.js' },
    ])
    expect(
      missingTargets(withoutSourceCondition(exportsField), new Set([...files, 'dist/extra.js'])),
    ).toEqual([])
  })

  it('reads a bare string or a top-level conditions object as the "." subpath', () => {
    expect(exportTargets('./index.js')).toEqual([{ subpath: '.', conditions: [], target: './index.js' }])
    expect(exportTargets({ import: './a.js', require: './a.cjs' }).map((t) => t.subpath)).toEqual(['.', '.'])
  })

  it('refuses a README without exactly one js example followed by its output', () => {
    const output = 'It prints:\n\n```text\nok\n```\n'
    expect(() => readmeExample('# x\n\n```sh\nnpm i x\n```\n')).toThrow(/exactly one/)
    expect(() => readmeExample(`\`\`\`js\na()\n\`\`\`\n\`\`\`js\nb()\n\`\`\`\n${output}`)).toThrow(
      /exactly one/,
    )
    expect(() => readmeExample('```js\na()\n```\n\n```text\nok\n```\n')).toThrow(/It prints/)
    expect(readmeExample(`\`\`\`js\nconsole.log('ok')\n\`\`\`\n\n${output}`)).toEqual({
      code: "console.log('ok')\n",
      output: 'ok\n',
    })
  })
})
