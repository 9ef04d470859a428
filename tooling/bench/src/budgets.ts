/**
 * Every performance budget of DESIGN.md section 5 and the open issues. A benchmark that checks one passes
 * its `id` to `compareOps`/`compareHttp`; the performance report lists each budget as met, missed (with
 * its figure) or not measured.
 */
export interface Budget {
  readonly id: string
  readonly what: string
  readonly budget: number
  /** Where the benchmark lives. */
  readonly bench: string
}

export const BUDGETS: readonly Budget[] = Object.freeze([
  {
    id: 'api-key-route',
    what: 'API-key route vs the same route unprotected',
    budget: 0.9,
    bench: 'packages/express/bench/credentials.bench.ts',
  },
  {
    id: 'workload-jwt-vs-express-jwt',
    what: 'Workload-JWT route (ES256, JWKS cached, token cache) vs express-jwt + jwks-rsa',
    budget: 2.5,
    bench: 'packages/express/bench/credentials.bench.ts',
  },
  {
    id: 'oauth-access-token-route',
    what: 'Authorization-server access-token route (ES256 at+jwt, grant checked per request) vs the same route unprotected',
    budget: 0.85,
    bench: 'packages/express/bench/access-tokens.bench.ts',
  },
  {
    id: 'dpop-route',
    what: 'DPoP-bound access-token route (ES256 proof verified per request) vs the same route with a bearer token',
    budget: 0.6,
    bench: 'packages/express/bench/dpop.bench.ts',
  },
  {
    id: 'opentelemetry-no-sdk',
    what: 'API-key route with the OpenTelemetry instrumentation installed and no SDK registered vs no instrumentation',
    budget: 0.98,
    bench: 'packages/opentelemetry/bench/no-sdk.bench.ts',
  },
  {
    id: 'protector',
    what: 'Protector seal+open vs raw node:crypto AES-256-GCM on the same payload',
    budget: 1.0,
    bench: 'packages/core/bench/protector.bench.ts',
  },
  {
    id: 'mcp-read-vs-get',
    what: 'MCP resources/read vs a plain Express GET of the same route and payload',
    budget: 0.7,
    bench: 'packages/express/bench/mcp.bench.ts',
  },
  {
    id: 'session-vs-connect-pg-simple',
    what: 'Session route (Postgres store, default settings) vs express-session + connect-pg-simple',
    budget: 3,
    bench: 'apps/reference/bench',
  },
  {
    id: 'session-vs-get',
    what: 'Session route (Postgres store, default settings) vs a plain GET of the same route',
    budget: 0.6,
    bench: 'apps/reference/bench',
  },
  {
    id: 'session-strict-vs-connect-pg-simple',
    what: 'Session route in strict mode (no lookup cache) vs express-session + connect-pg-simple',
    budget: 1.5,
    bench: 'apps/reference/bench',
  },
  {
    id: 'access-token-route',
    what: 'Access-token route vs the same route unprotected',
    budget: 0.85,
    bench: 'apps/reference/bench',
  },
  {
    id: 'refresh-cas',
    what: 'Postgres refresh CAS (32 concurrent refreshers) vs a bare single-row conditional UPDATE loop',
    budget: 0.6,
    bench: 'packages/postgres/bench/refresh-cas.bench.ts',
  },
  {
    id: 'session-listener-vs-get',
    what: 'Session route (Postgres store, revocation listener) vs a plain GET of the same route',
    budget: 0.75,
    bench: 'apps/reference/bench/revocation.bench.ts',
  },
  {
    id: 'api-key-listener-vs-get',
    what: 'API-key route (Postgres store, revocation listener) vs a plain GET of the same route',
    budget: 0.8,
    bench: 'apps/reference/bench/revocation.bench.ts',
  },
  {
    id: 'session-strict-one-statement-vs-get',
    what: 'Session route in strict mode (one SQL statement per request) vs a plain GET of the same route',
    budget: 0.45,
    bench: 'apps/reference/bench/revocation.bench.ts',
  },
  {
    id: 'fastify-session-vs-get',
    what: 'Fastify session route (Postgres store, default settings) vs a plain Fastify GET of the same route',
    budget: 0.75,
    bench: 'packages/fastify/bench/fastify.bench.ts',
  },
  {
    id: 'fastify-api-key-route',
    what: 'Fastify API-key route vs the same route unprotected',
    budget: 0.9,
    bench: 'packages/fastify/bench/fastify.bench.ts',
  },
  {
    id: 'fastify-mcp-read-vs-get',
    what: 'Fastify MCP resources/read vs a GET of the same route and payload (the same plugin installed on both)',
    budget: 0.7,
    bench: 'packages/fastify/bench/fastify.bench.ts',
  },
  {
    id: 'hono-session-vs-get',
    what: 'Hono session route (Postgres store, default settings) vs a plain Hono GET of the same payload',
    budget: 0.75,
    bench: 'packages/hono/bench/hono.bench.ts',
  },
  {
    id: 'hono-api-key-vs-get',
    what: 'Hono API-key route vs a plain Hono GET of the same payload',
    budget: 0.8,
    bench: 'packages/hono/bench/hono.bench.ts',
  },
  {
    id: 'hono-mcp-read-vs-get',
    what: 'Hono MCP resources/read vs a plain Hono GET of the same route and payload',
    budget: 0.6,
    bench: 'packages/hono/bench/hono.bench.ts',
  },
  {
    id: 'scale-session-read',
    what: 'Scale: session read on a cache miss / strict mode (getWithAccountEpoch) at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-password-sign-in',
    what: 'Scale: password sign-in, store part (rate limit, find password, create session) at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-api-key-cold',
    what: 'Scale: cold API-key verification, store part at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-refresh-rotate',
    what: 'Scale: refresh-token rotation (CAS) at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-logout-by-sid',
    what: 'Scale: back-channel logout by sid at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-epoch-bump',
    what: 'Scale: security epoch bump at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-totp-verify',
    what: 'Scale: TOTP verification, store part at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-passkey-sign-in',
    what: 'Scale: passkey sign-in, store part at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'scale-delete-account',
    what: 'Scale: deleteAccount (20 sessions, 5 API keys, an identity) at 10^6 accounts vs 10^3',
    budget: 0.8,
    bench: 'packages/postgres/bench/scale.bench.ts',
  },
  {
    id: 'hashing-starvation',
    what: 'Cheap route while 32 logins hash vs the same route idle',
    budget: 0.5,
    bench: 'apps/reference/bench',
  },
  {
    id: 'security-log-sign-in',
    what: 'Sign-in route with the security log on (Postgres, batched writer) vs off',
    budget: 0.95,
    bench: 'apps/reference/bench/security-log.bench.ts',
  },
  {
    id: 'outbox-drain',
    what: 'Mail outbox drain (Postgres outbox) to a loopback SMTP server, as its rate over 200 messages/s',
    budget: 1,
    bench: 'apps/reference/bench/outbox-drain.bench.ts',
  },
  {
    id: 'smtp-stall',
    what: 'Mail-request route (POST /auth/password/forgot) while the outbox drain sends to a stalled SMTP server vs a healthy one',
    budget: 0.9,
    bench: 'apps/reference/bench/smtp-stall.bench.ts',
  },
  {
    id: 'account-email-sign-up',
    what: 'Email sign-up with an address that has an account vs a new address (each way >= 0.95x: medians within 5%)',
    budget: 0.95,
    bench: 'packages/core/bench/account-email.bench.ts',
  },
  {
    id: 'account-email-reset',
    what: 'Password reset request for an unknown vs a known address (each way >= 0.95x: medians within 5%)',
    budget: 0.95,
    bench: 'packages/core/bench/account-email.bench.ts',
  },
  {
    id: 'hono-mcp-read-vs-same-get',
    what: 'Hono MCP resources/read vs a GET of the same route (Portcullis installed on both)',
    budget: 0.6,
    bench: 'packages/hono/bench/hono.bench.ts',
  },
  {
    id: 'fetch-mcp-read-vs-same-get',
    what: 'fetch form MCP resources/read vs a GET of the same route (both through the fetch form)',
    budget: 0.6,
    bench: 'packages/hono/bench/fetch.bench.ts',
  },
  ...adapterBudgets(),
])

/**
 * Every adapter against its framework with that framework's own security-header middleware configured to
 * send the same headers (DESIGN.md section 5), and its MCP reads against the official SDK servers.
 */
function adapterBudgets(): Budget[] {
  const adapters = [
    ['express', 'Express', 'helmet', 'packages/express/bench/header-baselines.bench.ts'],
    ['fastify', 'Fastify', '@fastify/helmet', 'packages/fastify/bench/fastify.bench.ts'],
    ['hono', 'Hono', 'hono/secure-headers', 'packages/hono/bench/hono.bench.ts'],
    ['fetch', 'fetch form', 'a fetch handler setting the same headers', 'packages/hono/bench/fetch.bench.ts'],
  ] as const
  const routes = [
    ['session', 'session route (Postgres store, default settings)', 0.9],
    ['api-key', 'API-key route', 0.9],
    ['access-token', 'access-token route', 0.85],
  ] as const
  const budgets: Budget[] = []
  for (const [adapter, label, middleware, bench] of adapters) {
    for (const [route, what, budget] of routes) {
      budgets.push({
        id: `${adapter}-${route}-vs-header-middleware`,
        what: `${label} ${what} vs ${label} with ${middleware} sending the same headers`,
        budget,
        bench,
      })
    }
    const mcpBench = adapter === 'express' ? 'packages/express/bench/mcp.bench.ts' : bench
    budgets.push(
      {
        id: `${adapter}-mcp-read-vs-sdk-1x`,
        what: `${label} MCP resources/read vs the 1.x SDK stateless server reading the same resource`,
        budget: 2,
        bench: mcpBench,
      },
      {
        id: `${adapter}-mcp-read-vs-sdk-2x`,
        what: `${label} MCP resources/read vs the 2.x SDK stateless handler reading the same resource`,
        budget: 2,
        bench: mcpBench,
      },
    )
  }
  return budgets
}

/**
 * Peer comparisons the issues ask for that `pnpm bench` does not make, and why (printed in the report).
 * Empty: every peer is measured (better-auth in apps/reference/bench/better-auth.bench.ts).
 */
export const PEERS_NOT_MEASURED: readonly { readonly peer: string; readonly why: string }[] = Object.freeze(
  [],
)
