/**
 * The dependency rule of the hexagon (docs/architecture.md):
 * - core is pure: no framework, driver or network-server module, no other workspace package, and of npm
 *   packages only jose and openid-client;
 * - the HTTP layer (http) is framework-neutral: no server framework, no adapter, of the workspace only core;
 *   its Web Request/Response path (http/src/web) reaches no Node server module (node:http, node:https,
 *   node:http2, node:net), so it runs wherever `fetch` does;
 * - adapters (express, fastify, hono, postgres, argon2, passkeys, totp, mail, password-blocklist) depend on core
 *   (the HTTP adapters also on http), never on each other; the conformance kit imports core, http and the capability packages,
 *   never an adapter; the capability packages (passkeys, totp) and the mail transport (mail) hold their own
 *   library (@simplewebauthn/server, otpauth, nodemailer), which nothing else ships, and the common-password
 *   list (@zxcvbn-ts/language-common) ships in password-blocklist only;
 * - the authorization server (authorization-server) builds on core, the framework-neutral HTTP layer
 *   (cookies, CSRF, bodies, problem+json: one of each) and oidc-provider, never on an adapter
 *   (applications mount it);
 * - no import circle anywhere, type-only imports included.
 * core's package.json itself (runtime dependencies jose and openid-client only) is checked by
 * test/core-manifest.test.ts: an unused dependency imports nothing this rule could see.
 * Applications (apps/*) and examples (examples/*) compose adapters and may import any package.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const FORBIDDEN_IN_CORE = '(express|pg|pg-[a-z-]+|drizzle-orm|drizzle-kit|hono|fastify|koa)'
/** Scoped packages of server frameworks (plugins, servers): as forbidden as the frameworks. */
const FRAMEWORK_SCOPES = '@(fastify|hono)/'
const FORBIDDEN_FRAMEWORKS = `(^|/)node_modules/${FORBIDDEN_IN_CORE}/|^${FORBIDDEN_IN_CORE}(/|$)|(^|/)node_modules/${FRAMEWORK_SCOPES}|^${FRAMEWORK_SCOPES}`
/** The adapters: each depends on core (and http), never on another. */
const ADAPTERS = '(express|fastify|hono|postgres|argon2|passkeys|totp|mail|password-blocklist)'

module.exports = {
  forbidden: [
    {
      name: 'core-no-framework-or-driver',
      comment: 'core must not import express, pg, drizzle or another framework or driver',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: FORBIDDEN_FRAMEWORKS },
    },
    {
      name: 'core-no-node-network-server',
      comment:
        'core code must not import node:http, node:https, node:http2 or node:net (outbound I/O is injected); its tests may run real servers',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(http|https|http2|net)$' },
    },
    {
      name: 'core-no-workspace-package',
      comment:
        'core must not import another workspace package (benchmarks may use the bench harness, tests the test tooling)',
      severity: 'error',
      from: { path: '^packages/core/', pathNot: '^packages/core/(bench|test)/|\\.test\\.ts$' },
      to: { path: '^(packages|apps|tooling)/|^@portcullis/', pathNot: '^packages/core/' },
    },
    {
      name: 'core-tests-only-test-tooling',
      comment: 'core tests may use the shared test tooling, never another package or an app',
      severity: 'error',
      from: { path: '^packages/core/(test/|src/.*\\.test\\.ts$)' },
      to: { path: '^(packages|apps)/|^@portcullis/', pathNot: '^packages/core/|^tooling/' },
    },
    {
      name: 'core-only-allowed-npm-packages',
      comment: 'core may depend only on jose and openid-client (DESIGN.md section 1)',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: '\\.test\\.ts$' },
      to: {
        dependencyTypes: [
          'npm',
          'npm-dev',
          'npm-optional',
          'npm-peer',
          'npm-no-pkg',
          'npm-unknown',
          'unknown',
        ],
        pathNot: '(^|/)node_modules/(jose|openid-client|oauth4webapi)/|^(jose|openid-client)(/|$)',
      },
    },
    {
      name: 'one-time-codes-library-in-totp-only',
      comment: "otpauth is the TOTP capability's own library: only packages/totp ships it",
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/totp/|\\.test\\.ts$|^packages/[^/]+/test/' },
      to: { path: '(^|/)node_modules/otpauth/|^otpauth(/|$)' },
    },
    {
      name: 'smtp-library-in-mail-only',
      comment: "nodemailer is the mail transport's own library: only packages/mail ships it",
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/mail/|\\.test\\.ts$|^packages/[^/]+/test/' },
      to: { path: '(^|/)node_modules/nodemailer/|^nodemailer(/|$)' },
    },
    {
      name: 'webauthn-library-in-passkeys-only',
      comment:
        "@simplewebauthn/server is the passkeys capability's own library: only packages/passkeys ships it",
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/passkeys/|\\.test\\.ts$|^packages/[^/]+/test/' },
      to: { path: '(^|/)node_modules/@simplewebauthn/server/|^@simplewebauthn/server(/|$)' },
    },
    {
      name: 'common-password-list-in-password-blocklist-only',
      comment:
        "the common-password list is the password-blocklist package's own data: only packages/password-blocklist ships it (core takes a list as an argument)",
      severity: 'error',
      from: {
        path: '^packages/',
        pathNot: '^packages/password-blocklist/|\\.test\\.ts$|^packages/[^/]+/test/',
      },
      to: { path: '(^|/)node_modules/@zxcvbn-ts/|^@zxcvbn-ts/' },
    },
    {
      name: 'http-no-framework',
      comment: 'the HTTP layer is framework-neutral: it must not import a server framework',
      severity: 'error',
      from: { path: '^packages/http/' },
      to: { path: FORBIDDEN_FRAMEWORKS },
    },
    {
      name: 'http-web-no-node-server',
      comment:
        'the Web Request/Response path of the HTTP layer runs on any fetch runtime: nothing reachable from it imports node:http, node:https, node:http2 or node:net',
      severity: 'error',
      from: { path: '^packages/http/src/web/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(node:)?(http|https|http2|net)$', reachable: true },
    },
    {
      name: 'http-only-core',
      comment: 'the HTTP layer depends on core only, never on an adapter or an app (tests may use tooling)',
      severity: 'error',
      from: { path: '^packages/http/', pathNot: '^packages/http/test/|\\.test\\.ts$' },
      to: { path: '^(packages|apps|tooling)/', pathNot: '^packages/(http|core)/' },
    },
    {
      name: 'authorization-server-only-core',
      comment:
        'the authorization server builds on core and the HTTP layer (and oidc-provider) only: never an adapter or an app (its tests may mount it on Express and Fastify and use the test tooling)',
      severity: 'error',
      from: {
        path: '^packages/authorization-server/',
        pathNot: '^packages/authorization-server/(test|bench)/|\\.test\\.ts$',
      },
      to: {
        path: '^(packages|apps|tooling)/|^@portcullis/',
        pathNot: '^packages/(authorization-server|core|http)/|^@portcullis/(core|http)(/|$)',
      },
    },
    {
      name: 'adapter-no-other-adapter',
      comment:
        'an adapter must not import another adapter; the application composes them (and so may a benchmark or a test, which are applications measuring or exercising them together)',
      severity: 'error',
      from: {
        path: `^packages/${ADAPTERS}/`,
        pathNot: '^packages/[^/]+/(bench|test)/|\\.test\\.ts$',
      },
      to: {
        path: '^packages/(express|fastify|hono|postgres|argon2|passkeys|totp|mail|password-blocklist|conformance)/',
        pathNot: '^packages/($1|conformance)/',
      },
    },
    {
      name: 'conformance-no-adapter',
      comment:
        'the conformance kit runs against the adapter under test, which its caller passes in: it imports core, the HTTP layer and the capability packages (real passkey and TOTP ceremonies), never an adapter',
      severity: 'error',
      from: { path: '^packages/conformance/', pathNot: '^packages/conformance/test/|\\.test\\.ts$' },
      to: { path: '^packages/(express|fastify|hono|postgres|argon2|mail)/' },
    },
    {
      name: 'adapter-no-test-kit-in-production',
      comment: 'adapters may run the conformance kit in their tests, never ship it in their own code',
      severity: 'error',
      from: {
        path: '^packages/(express|fastify|hono|http|postgres|passkeys|totp|mail)/src/',
        pathNot: '\\.test\\.ts$',
      },
      to: { path: '^packages/conformance/' },
    },
    {
      name: 'no-circular',
      comment:
        'no import cycle in any package, type-only imports included (tsPreCompilationDeps counts them)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // also the dot-named scripts a running test writes beside itself and removes (a listing could race them)
    exclude: {
      path: '(^|/)(node_modules|dist|\\.turbo|\\.next)/|fixtures/violations/|(^|/)\\.[^/]+\\.m?[jt]s$',
    },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@portcullis/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.d.ts'],
      mainFields: ['module', 'main', 'types'],
    },
  },
}
