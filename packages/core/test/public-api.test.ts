// The package root exports the whole public API: every name of every capability subpath (read from the
// package.json `exports` map, so a new subpath is covered without touching this file), the same binding
// under the same name, and nothing that no subpath exports. Runtime names are compared by identity;
// type-only names, which vanish at runtime, are compared as compiler symbols.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const packageRoot = new URL('../', import.meta.url)
const manifest: { exports: Record<string, Record<string, string>> } = JSON.parse(
  readFileSync(new URL('package.json', packageRoot), 'utf8'),
)

/** Every entry of the exports map, resolved to its TypeScript source (the `@portcullis/source` condition). */
const entries = Object.entries(manifest.exports).map(([subpath, conditions]) => {
  const source = conditions['@portcullis/source']
  if (source === undefined) throw new Error(`exports["${subpath}"] has no @portcullis/source condition`)
  return { subpath, url: new URL(source, packageRoot) }
})
const subpaths = entries.filter((entry) => entry.subpath !== '.')
const rootUrl = entries.find((entry) => entry.subpath === '.')?.url.href

async function importRoot(): Promise<Record<string, unknown>> {
  if (rootUrl === undefined) throw new Error('the exports map has no "." entry')
  return import(rootUrl)
}

/** All names (types and values) each entry exports, resolved to the symbol that declares them. */
function compilerExports(): Map<string, Map<string, ts.Symbol>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL('tsconfig.json', packageRoot)),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      },
    },
  )
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const files = entries.map((entry) => fileURLToPath(entry.url))
  const program = ts.createProgram(files, config.options)
  const checker = program.getTypeChecker()
  const result = new Map<string, Map<string, ts.Symbol>>()
  entries.forEach((entry, index) => {
    const sourceFile = program.getSourceFile(files[index] as string)
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile)
    if (moduleSymbol === undefined) throw new Error(`${entry.subpath}: not a module`)
    const names = new Map<string, ts.Symbol>()
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      names.set(exported.name, target)
    }
    result.set(entry.subpath, names)
  })
  return result
}

describe('the package root', () => {
  it('is in the exports map beside at least one capability subpath', () => {
    expect(rootUrl).toBeDefined()
    expect(subpaths.length).toBeGreaterThan(0)
  })

  it.each(subpaths.map((entry) => [entry.subpath, entry] as const))(
    'exports every runtime name of %s as the same value',
    async (_subpath, entry) => {
      const capability: Record<string, unknown> = await import(entry.url.href)
      const everything: Record<string, unknown> = await importRoot()
      const names = Object.keys(capability)
      const missing = names.filter((name) => !(name in everything))
      expect(missing).toEqual([])
      for (const name of names) expect(everything[name], name).toBe(capability[name])
    },
  )

  it('exports no runtime name that no subpath exports', async () => {
    const everything: Record<string, unknown> = await importRoot()
    const published = new Set<string>()
    for (const entry of subpaths) {
      for (const name of Object.keys(await import(entry.url.href))) published.add(name)
    }
    expect(Object.keys(everything).filter((name) => !published.has(name))).toEqual([])
  })

  it('keeps the OAuth namespaces of /oauth', async () => {
    const { accounts, transactions } = await importRoot()
    const oauth = await import('../src/oauth/index.js')
    expect(accounts).toBe(oauth.accounts)
    expect(transactions).toBe(oauth.transactions)
    expect(oauth.accounts.MemoryOAuthAccountStore).toBeTypeOf('function')
    expect(oauth.transactions.MemoryOAuthTransactionStore).toBeTypeOf('function')
  })

  it('exports every type and value name of every subpath, and nothing else, as the same symbol', () => {
    const exportsByEntry = compilerExports()
    const rootNames = exportsByEntry.get('.') as Map<string, ts.Symbol>
    const missing: string[] = []
    const different: string[] = []
    const collisions: string[] = []
    const owners = new Map<string, { subpath: string; symbol: ts.Symbol }>()
    for (const entry of subpaths) {
      for (const [name, symbol] of exportsByEntry.get(entry.subpath) as Map<string, ts.Symbol>) {
        const owner = owners.get(name)
        if (owner !== undefined && owner.symbol !== symbol)
          collisions.push(`${name}: ${owner.subpath} and ${entry.subpath}`)
        owners.set(name, { subpath: entry.subpath, symbol })
        const fromRoot = rootNames.get(name)
        if (fromRoot === undefined) missing.push(`${entry.subpath}: ${name}`)
        else if (fromRoot !== symbol) different.push(`${entry.subpath}: ${name}`)
      }
    }
    const extra = [...rootNames.keys()].filter((name) => !owners.has(name))
    // Two capabilities exporting one name for different things cannot both be on the root.
    expect({ collisions, missing, different, extra }).toEqual({
      collisions: [],
      missing: [],
      different: [],
      extra: [],
    })
    // The comparison saw type-only names too, not just the runtime ones.
    expect(rootNames.has('OAuthTransactionProtector')).toBe(true)
  })
})
