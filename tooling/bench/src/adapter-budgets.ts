// The budgets every adapter shares (DESIGN.md section 5): credential routes against the framework with its
// own security-header middleware sending the same headers, the framework with nothing reported beside
// them, and MCP reads against a GET of the same route and against the official SDK servers.
import { BUDGETS } from './budgets.js'
import { type ComparisonResult, compareHttp } from './compare.js'
import { assertSameHeaders } from './header-parity.js'
import type { HttpCase } from './http-load.js'

export type AdapterName = 'express' | 'fastify' | 'hono' | 'fetch'

/** What the report calls each adapter, its header middleware, and where its bench lives. */
export const ADAPTERS: Readonly<
  Record<AdapterName, { readonly label: string; readonly middleware: string; readonly bench: string }>
> = Object.freeze({
  express: {
    label: 'Express',
    middleware: 'helmet',
    bench: 'packages/express/bench/header-baselines.bench.ts',
  },
  fastify: {
    label: 'Fastify',
    middleware: '@fastify/helmet',
    bench: 'packages/fastify/bench/fastify.bench.ts',
  },
  hono: {
    label: 'Hono (@hono/node-server)',
    middleware: 'hono/secure-headers',
    bench: 'packages/hono/bench/hono.bench.ts',
  },
  fetch: {
    label: 'fetch form (@hono/node-server)',
    middleware: 'a fetch handler setting the same headers',
    bench: 'packages/hono/bench/fetch.bench.ts',
  },
})

export type CredentialRoute = 'session' | 'api-key' | 'access-token'

const ROUTE_LABELS: Readonly<Record<CredentialRoute, string>> = {
  session: 'session route (Postgres store, default settings)',
  'api-key': 'API-key route',
  'access-token': 'access-token route (local ES256 at+jwt)',
}

/** The id of an adapter's budget: `<adapter>-<route>-vs-header-middleware`, `<adapter>-mcp-read-vs-sdk-1x`. */
export const adapterBudgetId = (
  adapter: AdapterName,
  what: CredentialRoute | 'mcp-read-vs-sdk-1x' | 'mcp-read-vs-sdk-2x',
): string =>
  what === 'mcp-read-vs-sdk-1x' || what === 'mcp-read-vs-sdk-2x'
    ? `${adapter}-${what}`
    : `${adapter}-${what}-vs-header-middleware`

function budgetOf(id: string): number {
  const found = BUDGETS.find((budget) => budget.id === id)
  if (found === undefined) throw new Error(`no budget ${id} in budgets.ts`)
  return found.budget
}

/** `BENCH_ONLY=session,mcp` runs only those parts (for profiling); unset runs them all. */
export function benchPartRuns(part: string): boolean {
  const only = process.env.BENCH_ONLY
  return only === undefined || only.split(',').includes(part)
}

export interface HeaderMiddlewareTargets {
  readonly adapter: AdapterName
  /** The framework with nothing: the same payload, no headers added. */
  readonly plain: HttpCase
  /** The framework with its own security-header middleware, configured to send the candidate's headers. */
  readonly headerMiddleware: HttpCase
  readonly routes: Partial<Record<CredentialRoute, HttpCase>>
  /**
   * Budgets some routes also have against the framework with nothing (DESIGN.md's earlier per-adapter
   * figures): that comparison then carries the id and its budget instead of being report only.
   */
  readonly plainBudgets?: Partial<Record<CredentialRoute, string>>
}

/**
 * For each credential route: refuses to measure when it and the header-middleware baseline send
 * different headers, then the budgeted comparison against that baseline and, report only, against the
 * framework with nothing; and what the header middleware itself costs over nothing.
 */
export async function compareWithHeaderMiddleware(
  targets: HeaderMiddlewareTargets,
): Promise<ComparisonResult[]> {
  const { label, middleware } = ADAPTERS[targets.adapter]
  const results: ComparisonResult[] = []
  if (benchPartRuns('headers')) {
    results.push(
      await compareHttp({
        title: `${label}: ${middleware} vs the framework with nothing (report only: what the headers cost)`,
        baseline: targets.plain,
        candidate: targets.headerMiddleware,
      }),
    )
  }
  for (const route of ['session', 'api-key', 'access-token'] as const) {
    const candidate = targets.routes[route]
    if (candidate === undefined || !benchPartRuns(route)) continue
    await assertSameHeaders(targets.headerMiddleware, candidate)
    const id = adapterBudgetId(targets.adapter, route)
    results.push(
      await compareHttp({
        id,
        title: `${label} ${ROUTE_LABELS[route]} vs ${targets.headerMiddleware.name}`,
        baseline: targets.headerMiddleware,
        candidate,
        budget: budgetOf(id),
      }),
    )
    const plainId = targets.plainBudgets?.[route]
    results.push(
      await compareHttp({
        title: `${label} ${ROUTE_LABELS[route]} vs ${targets.plain.name}${plainId === undefined ? ' (report only)' : ''}`,
        baseline: targets.plain,
        candidate,
        ...(plainId === undefined ? {} : { id: plainId, budget: budgetOf(plainId) }),
      }),
    )
  }
  return results
}

export interface SdkReadTargets {
  readonly adapter: AdapterName
  /** The 1.x SDK's stateless server (a fresh server and transport per request), on 2025-11-25. */
  readonly sdk1: { readonly baseline: HttpCase; readonly candidate: HttpCase }
  /** The 2.x SDK's stateless handler (`createMcpHandler`), on 2026-07-28. */
  readonly sdk2: { readonly baseline: HttpCase; readonly candidate: HttpCase }
}

/** MCP `resources/read` of the same resource against the official SDK servers (budget >= 2x each). */
export async function compareWithSdkServers(targets: SdkReadTargets): Promise<ComparisonResult[]> {
  if (!benchPartRuns('sdk')) return []
  const { label } = ADAPTERS[targets.adapter]
  const results: ComparisonResult[] = []
  for (const [era, pair, sdk] of [
    ['1x', targets.sdk1, '1.x SDK stateless server'],
    ['2x', targets.sdk2, '2.x SDK stateless handler (createMcpHandler)'],
  ] as const) {
    const id = adapterBudgetId(targets.adapter, `mcp-read-vs-sdk-${era}`)
    results.push(
      await compareHttp({
        id,
        title: `${label} MCP resources/read vs the ${sdk} reading the same resource`,
        baseline: pair.baseline,
        candidate: pair.candidate,
        budget: budgetOf(id),
      }),
    )
  }
  return results
}
