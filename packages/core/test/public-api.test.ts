// The package root exports the whole public API: every name of every capability subpath (read from the
// package.json `exports` map, so a new subpath is covered without touching this file), the same binding
// under the same name, and nothing that no subpath exports. Runtime names are compared by identity;
// type-only names, which vanish at runtime, are compared as compiler symbols.
import { compareSurface, compilerExports, packageSurface } from '@portcullis/api-surface'
import { describe, expect, it } from 'vitest'

const packageRoot = new URL('../', import.meta.url)
const { entries, subpaths, rootUrl, importRoot } = packageSurface(packageRoot)

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
    const exportsByEntry = compilerExports(packageRoot, entries)
    const rootNames = exportsByEntry.get('.') ?? new Map()
    // Two capabilities exporting one name for different things cannot both be on the root.
    expect(compareSurface(exportsByEntry)).toEqual({ collisions: [], missing: [], different: [], extra: [] })
    // The comparison saw type-only names too, not just the runtime ones.
    expect(rootNames.has('OAuthTransactionProtector')).toBe(true)
  })
})
