import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * docs/reference-app.md's "The API" table against the routes' policies as the running app states them:
 * the OpenAPI document's `security` of each operation is generated from the route's `auth` policy (one
 * entry per mechanism it accepts, none for `anonymous()`). Every credential the table names must be one
 * the route takes, and every one the route takes must be named; every `/api` route is in the table.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url))

/** The table's words for each mechanism of the app. */
const MECHANISMS: Readonly<Record<string, string>> = {
  'OAuth access token': 'oauth',
  'API key': 'api-key',
  'workload JWT': 'workload',
  'local access token': 'local-token',
  session: 'session',
}

interface Row {
  readonly operations: readonly { readonly method: string; readonly path: string }[]
  /** Mechanism names; empty for `anyone`. */
  readonly accepts: readonly string[]
  readonly line: string
}

/** The rows of the table under `### The API`. */
function apiTable(doc: string): readonly Row[] {
  const section = doc.slice(doc.indexOf('### The API\n'))
  const lines = section.split('\n')
  const first = lines.findIndex((line) => line.startsWith('| Route'))
  const rows: Row[] = []
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break
    const [route = '', accepts = ''] = line.split('|').slice(1, 3)
    let method = ''
    const operations = [...route.matchAll(/`([^`]+)`/g)].map(([, text = '']) => {
      const parts = text.split(' ')
      if (parts.length === 2) method = parts[0] ?? ''
      const path = (parts.length === 2 ? parts[1] : parts[0]) ?? ''
      return { method, path: path.replace(/:(\w+)/g, '{$1}') }
    })
    // A parenthesis qualifies a credential (a guard of the route), it names none.
    const words = accepts
      .replace(/\([^)]*\)/g, '')
      .split(',')
      .map((word) => word.trim())
    const names = words.flatMap((word) => {
      if (word === 'anyone') return []
      const name = MECHANISMS[word]
      if (name === undefined) throw new Error(`the API table names an unknown credential: "${word}"`)
      return [name]
    })
    rows.push({ operations, accepts: names, line })
  }
  return rows
}

let app: TestApp
let openapi: {
  paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>
}

beforeAll(async () => {
  app = await startTestApp()
  openapi = (await (await fetch(`${app.url}/openapi.json`)).json()) as typeof openapi
}, 120_000)
afterAll(async () => {
  await app?.close()
})

describe('docs/reference-app.md, The API', () => {
  it("names exactly the credentials each route's policy accepts", async () => {
    const rows = apiTable(await readFile(`${root}docs/reference-app.md`, 'utf8'))
    expect(rows.length).toBeGreaterThan(5)
    for (const row of rows) {
      for (const { method, path } of row.operations) {
        const operation = openapi.paths[path]?.[method.toLowerCase()]
        if (operation === undefined) {
          // Left out of the OpenAPI document (the document itself, the health route): only public ones.
          expect(row.accepts, row.line).toEqual([])
          const answer = await fetch(`${app.url}${path}`, { method })
          expect(answer.status, `${method} ${path}`).toBe(200)
          continue
        }
        const accepted = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))
        expect([...accepted].sort(), `${method} ${path}: ${row.line}`).toEqual([...row.accepts].sort())
      }
    }
  })

  it('lists every /api route and the MCP endpoint', async () => {
    const rows = apiTable(await readFile(`${root}docs/reference-app.md`, 'utf8'))
    const listed = new Set(rows.flatMap((row) => row.operations.map((op) => `${op.method} ${op.path}`)))
    const routes = Object.entries(openapi.paths)
      .filter(([path]) => path.startsWith('/api/') || path === '/mcp')
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    expect(routes.length).toBeGreaterThan(5)
    for (const route of routes) expect(listed, route).toContain(route)
  })

  it('reads the table strictly: an unknown credential is an error, not skipped', () => {
    const doc =
      '### The API\n\n| Route | Accepts | What |\n| - | - | - |\n| `GET /api/x` | API key, a cookie | x |\n'
    expect(() => apiTable(doc)).toThrow('unknown credential: "a cookie"')
    const fine = apiTable(doc.replace(', a cookie', ', OAuth access token'))
    expect(fine[0]?.accepts).toEqual(['api-key', 'oauth'])
  })
})
