// Every public factory and constructor that takes an options object refuses, at startup and with a
// `ConfigurationError` naming the option: options that are not a plain object, unknown keys (a typo never
// falls back to a default), missing required options and wrongly typed ones, nested objects included.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  ApiKeyPepperRing,
  ApiKeyService,
  ApiKeyUsageRecorder,
  apiKey,
  MemoryApiKeyStore,
} from '../../src/api-keys/index.js'
import { compileGuards, requiresTenant, requiresTenantRole } from '../../src/authorization/index.js'
import { ConfigurationError } from '../../src/errors/index.js'
import { googleIap } from '../../src/iap/index.js'
import { CachedJWKSProvider, createFetchJWKSFetcher } from '../../src/jwks/index.js'
import { loadSkillCatalog, MCPDispatcher, MCPResourceRegistry } from '../../src/mcp/index.js'
import {
  drainRevocationRetries,
  MemoryOAuthAccountStore,
  OAuthAccountService,
  reencryptOAuthVault,
} from '../../src/oauth/accounts/index.js'
import {
  MemoryOAuthTransactionStore,
  OAuthRedirectPolicy,
  OAuthTransactionService,
} from '../../src/oauth/transactions/index.js'
import { PolicyEvaluator } from '../../src/policy/index.js'
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
  OAuthTransactionProtectorKey,
} from '../../src/protection/index.js'
import { MemoryStepUpStore, StepUpService } from '../../src/step-up/index.js'
import { githubActionsOidc, kubernetesServiceAccount, workloadJwt } from '../../src/workload-jwt/index.js'
import { CALLBACK, newProtector } from '../oauth-transactions/fixtures.js'
import {
  common,
  describeFactoryOptions,
  type Factory,
  failure,
  with_,
  without,
} from '../support/factory-options.js'

const ISSUER = 'https://issuer.example'
const SKILLS = mkdtempSync(join(tmpdir(), 'portcullis-options-'))
afterAll(() => rmSync(SKILLS, { recursive: true, force: true }))
const JWKS_URI = 'https://issuer.example/jwks'
const tokenEndpoint = () => ({ refresh: async () => ({ kind: 'invalid-grant' }), revoke: async () => true })

const factories: readonly Factory[] = [
  {
    name: 'workloadJwt',
    valid: () => ({ issuer: ISSUER, audience: 'api', jwksUri: JWKS_URI, jwks: new CachedJWKSProvider() }),
    create: (options) => workloadJwt(options as never),
    rows: [
      [
        'a typo of clockSkewSeconds',
        with_({ clockSkewSecond: 5 }),
        'configuration.unknown_option',
        'workloadJwt.clockSkewSecond',
      ],
      ['no jwks provider', without('jwks'), 'configuration.missing_option', 'workloadJwt.jwks'],
      ['no issuer (published code)', without('issuer'), 'workload_jwt.invalid_config', 'workloadJwt.issuer'],
      ['a numeric audience', with_({ audience: 7 }), 'workload_jwt.invalid_config', 'workloadJwt.audience'],
      [
        'a string clock skew',
        with_({ clockSkewSeconds: '30' }),
        'workload_jwt.invalid_config',
        'workloadJwt.clockSkewSeconds',
      ],
      [
        'a string algorithm list',
        with_({ algorithms: 'ES256' }),
        'configuration.invalid_option',
        'workloadJwt.algorithms',
      ],
      [
        'a numeric scope claim',
        with_({ scopeClaim: 5 }),
        'configuration.invalid_option',
        'workloadJwt.scopeClaim',
      ],
      [
        'a string shareBearerHeader',
        with_({ shareBearerHeader: 'yes' }),
        'configuration.invalid_option',
        'workloadJwt.shareBearerHeader',
      ],
      ['cache set to true', with_({ cache: true }), 'configuration.invalid_option', 'workloadJwt.cache'],
      [
        'a typo inside cache',
        with_({ cache: { maxEntry: 10 } }),
        'configuration.unknown_option',
        'workloadJwt.cache.maxEntry',
      ],
      [
        'a string inside cache',
        with_({ cache: { maxEntries: '10' } }),
        'workload_jwt.invalid_config',
        'workloadJwt.cache.maxEntries',
      ],
      [
        'a profile with an unknown key',
        with_({
          profile: {
            name: 'p',
            tokenTypes: [],
            typOptional: true,
            scopeRequired: false,
            requiredClaims: [],
            toleratedHeaders: [],
            extra: 1,
          },
        }),
        'configuration.unknown_option',
        'workloadJwt.profile.extra',
      ],
      [
        'a profile missing tokenTypes',
        with_({ profile: { name: 'p' } }),
        'configuration.missing_option',
        'workloadJwt.profile.tokenTypes',
      ],
      ...common('workloadJwt'),
    ],
  },
  {
    name: 'githubActionsOidc',
    valid: () => ({ audience: 'api', jwks: new CachedJWKSProvider() }),
    create: (options) => githubActionsOidc(options as never),
    rows: [
      [
        'a profile (pinned by the preset)',
        with_({ profile: {} }),
        'configuration.unknown_option',
        'githubActionsOidc.profile',
      ],
      ['no audience', without('audience'), 'workload_jwt.invalid_config', 'githubActionsOidc.audience'],
      [
        'a numeric issuer override',
        with_({ issuer: 1 }),
        'workload_jwt.invalid_config',
        'githubActionsOidc.issuer',
      ],
      ...common('githubActionsOidc'),
    ],
  },
  {
    name: 'kubernetesServiceAccount',
    valid: () => ({ issuer: ISSUER, jwksUri: JWKS_URI, audience: 'api', jwks: new CachedJWKSProvider() }),
    create: (options) => kubernetesServiceAccount(options as never),
    rows: [
      ['no JWKS URL', without('jwksUri'), 'jwks.insecure_uri', 'kubernetesServiceAccount.jwksUri'],
      [
        'a typo of audience',
        with_({ audiences: ['a'] }),
        'configuration.unknown_option',
        'kubernetesServiceAccount.audiences',
      ],
      ...common('kubernetesServiceAccount'),
    ],
  },
  {
    name: 'apiKey',
    valid: () => ({ service: apiKeyService() }),
    create: (options) => apiKey(options as never),
    rows: [
      ['no service', without('service'), 'configuration.missing_option', 'apiKey.service'],
      ['a typo of header', with_({ headers: 'x-key' }), 'configuration.unknown_option', 'apiKey.headers'],
      ['a numeric header', with_({ header: 1 }), 'api_key.invalid_config', 'apiKey.header'],
      [
        'a string default flag',
        with_({ default: 'false' }),
        'configuration.invalid_option',
        'apiKey.default',
      ],
      ...common('apiKey'),
    ],
  },
  {
    name: 'ApiKeyService',
    valid: () => ({ store: new MemoryApiKeyStore(), peppers: peppers() }),
    create: (options) => new ApiKeyService(options as never),
    rows: [
      ['no peppers', without('peppers'), 'configuration.missing_option', 'ApiKeyService.peppers'],
      ['a numeric prefix', with_({ prefix: 12 }), 'api_key.invalid_prefix', 'ApiKeyService.prefix'],
      [
        'a negative overlap',
        with_({ maxOverlapSeconds: -1 }),
        'configuration.invalid_option',
        'ApiKeyService.maxOverlapSeconds',
      ],
      [
        'a typo inside digestMemo',
        with_({ digestMemo: { maxTtl: 5 } }),
        'configuration.unknown_option',
        'ApiKeyService.digestMemo.maxTtl',
      ],
      [
        'digestMemo set to true',
        with_({ digestMemo: true }),
        'configuration.invalid_option',
        'ApiKeyService.digestMemo',
      ],
      ...common('ApiKeyService'),
    ],
  },
  {
    name: 'ApiKeyPepperRing.active',
    valid: () => ({ version: 'v1', secret: randomBytes(32) }),
    create: (options) => new ApiKeyPepperRing(options as never),
    rows: [
      ['no secret', without('secret'), 'api_key.invalid_pepper', 'ApiKeyPepperRing.active.secret'],
      [
        'a string secret',
        with_({ secret: 'x'.repeat(64) }),
        'api_key.invalid_pepper',
        'ApiKeyPepperRing.active.secret',
      ],
      [
        'a typo of version',
        (valid) => ({ versoin: 'v1', secret: valid.secret }),
        'configuration.unknown_option',
        'ApiKeyPepperRing.active.versoin',
      ],
      ...common('ApiKeyPepperRing.active'),
    ],
  },
  {
    name: 'ApiKeyPepperRing.retained',
    valid: () => ({ version: 'v0', secret: randomBytes(32) }),
    create: (options) => new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }, [options as never]),
    rows: [
      ['no version', without('version'), 'api_key.invalid_pepper', 'ApiKeyPepperRing.retained[0].version'],
      ...common('ApiKeyPepperRing.retained[0]'),
    ],
  },
  {
    name: 'ApiKeyUsageRecorder',
    valid: () => ({ store: new MemoryApiKeyStore() }),
    create: (options) => new ApiKeyUsageRecorder(options as never),
    rows: [
      ['no store', without('store'), 'configuration.missing_option', 'ApiKeyUsageRecorder.store'],
      [
        'a zero capacity',
        with_({ capacity: 0 }),
        'configuration.invalid_option',
        'ApiKeyUsageRecorder.capacity',
      ],
      [
        'a flush interval past the timer limit',
        with_({ flushIntervalMs: 2 ** 31 }),
        'configuration.invalid_option',
        'ApiKeyUsageRecorder.flushIntervalMs',
      ],
      [
        'a typo of flushIntervalMs',
        with_({ flushIntervalMS: 5 }),
        'configuration.unknown_option',
        'ApiKeyUsageRecorder.flushIntervalMS',
      ],
      ...common('ApiKeyUsageRecorder'),
    ],
  },
  {
    name: 'googleIap',
    valid: () => ({ audience: '/projects/1/apps/demo', jwks: new CachedJWKSProvider() }),
    create: (options) => googleIap(options as never),
    rows: [
      ['no jwks provider', without('jwks'), 'configuration.missing_option', 'googleIap.jwks'],
      ['a list of audiences', with_({ audience: ['a'] }), 'iap.invalid_config', 'googleIap.audience'],
      [
        'a typo of clockSkewSeconds',
        with_({ clockSkewSecond: 1 }),
        'configuration.unknown_option',
        'googleIap.clockSkewSecond',
      ],
      [
        'a resolver that is not a function',
        with_({ resolveIdentity: {} }),
        'configuration.invalid_option',
        'googleIap.resolveIdentity',
      ],
      ...common('googleIap'),
    ],
  },
  {
    name: 'CachedJWKSProvider',
    valid: () => ({}),
    create: (options) => new CachedJWKSProvider(options as never),
    rows: [
      [
        'a typo of staleIfErrorSeconds',
        with_({ staleIfErrorSecond: 1 }),
        'configuration.unknown_option',
        'CachedJWKSProvider.staleIfErrorSecond',
      ],
      ['a string number', with_({ maxKeys: '5' }), 'jwks.invalid_policy', 'CachedJWKSProvider.maxKeys'],
      [
        'a string flag',
        with_({ allowInsecureLoopback: 'true' }),
        'configuration.invalid_option',
        'CachedJWKSProvider.allowInsecureLoopback',
      ],
      [
        'a source that is not an object',
        with_({ sources: ['https://x'] }),
        'configuration.invalid_option',
        'CachedJWKSProvider.sources[0]',
      ],
      [
        'a source with an unknown key',
        with_({
          sources: [{ issuer: ISSUER, jwksUri: JWKS_URI, algorithms: ['ES256'], algorithm: 'ES256' }],
        }),
        'configuration.unknown_option',
        'CachedJWKSProvider.sources[0].algorithm',
      ],
      [
        'a source without an issuer',
        with_({ sources: [{ jwksUri: JWKS_URI, algorithms: ['ES256'] }] }),
        'jwks.invalid_source',
        'CachedJWKSProvider.sources[0].issuer',
      ],
      ...common('CachedJWKSProvider'),
    ],
  },
  {
    name: 'CachedJWKSProvider.register',
    valid: () => ({ issuer: ISSUER, jwksUri: JWKS_URI, algorithms: ['ES256'] }),
    create: (options) => new CachedJWKSProvider().register(options as never),
    rows: [
      [
        'a typo of jwksUri',
        with_({ jwksUrl: JWKS_URI }),
        'configuration.unknown_option',
        'CachedJWKSProvider.register.jwksUrl',
      ],
      [
        'no algorithms',
        without('algorithms'),
        'jwks.invalid_source',
        'CachedJWKSProvider.register.algorithms',
      ],
      ...common('CachedJWKSProvider.register'),
    ],
  },
  {
    name: 'createFetchJWKSFetcher',
    valid: () => ({}),
    create: (options) => createFetchJWKSFetcher(options as never),
    rows: [
      [
        'a typo of timeoutMs',
        with_({ timeout: 5 }),
        'configuration.unknown_option',
        'createFetchJWKSFetcher.timeout',
      ],
      [
        'a fetch that is not a function',
        with_({ fetch: 'fetch' }),
        'jwks.invalid_policy',
        'createFetchJWKSFetcher.fetch',
      ],
      ...common('createFetchJWKSFetcher'),
    ],
  },
  {
    name: 'StepUpService',
    valid: () => ({ store: new MemoryStepUpStore() }),
    create: (options) => new StepUpService(options as never),
    rows: [
      ['no store', without('store'), 'step-up.service_options', 'StepUpService.store'],
      ['a string TTL', with_({ ttlSeconds: '60' }), 'step-up.ttl', 'StepUpService.ttlSeconds'],
      ['a typo of ttlSeconds', with_({ ttl: 60 }), 'configuration.unknown_option', 'StepUpService.ttl'],
      [
        'a clock that is not a function',
        with_({ clock: new Date() }),
        'configuration.invalid_option',
        'StepUpService.clock',
      ],
      ...common('StepUpService'),
    ],
  },
  {
    name: 'MemoryStepUpStore',
    valid: () => ({}),
    create: (options) => new MemoryStepUpStore(options as never),
    rows: [
      [
        'a typo of capacity',
        with_({ capacty: 5 }),
        'configuration.unknown_option',
        'MemoryStepUpStore.capacty',
      ],
      ['a string capacity', with_({ capacity: '5' }), 'step-up.store_options', 'MemoryStepUpStore.capacity'],
      ...common('MemoryStepUpStore'),
    ],
  },
  {
    name: 'OAuthTransactionService',
    valid: () => ({
      store: new MemoryOAuthTransactionStore({ protector: newProtector() }),
      redirects: new OAuthRedirectPolicy({ callbackUris: { acme: [CALLBACK] } }),
      pepper: randomBytes(32),
    }),
    create: (options) => new OAuthTransactionService(options as never),
    rows: [
      [
        'no pepper',
        without('pepper'),
        'oauth.transaction_service.pepper_invalid',
        'OAuthTransactionService.pepper',
      ],
      [
        'no redirect policy',
        without('redirects'),
        'oauth.transaction_service.redirects_required',
        'OAuthTransactionService.redirects',
      ],
      [
        'a typo of lifetimeSeconds',
        with_({ lifetimeSecond: 60 }),
        'configuration.unknown_option',
        'OAuthTransactionService.lifetimeSecond',
      ],
      ...common('OAuthTransactionService'),
    ],
  },
  {
    name: 'MemoryOAuthTransactionStore',
    valid: () => ({ protector: newProtector() }),
    create: (options) => new MemoryOAuthTransactionStore(options as never),
    rows: [
      [
        'no protector',
        without('protector'),
        'oauth.transaction_store.protector_required',
        'MemoryOAuthTransactionStore.protector',
      ],
      [
        'a typo of capacity',
        with_({ maxCapacity: 5 }),
        'configuration.unknown_option',
        'MemoryOAuthTransactionStore.maxCapacity',
      ],
      ...common('MemoryOAuthTransactionStore'),
    ],
  },
  {
    name: 'OAuthRedirectPolicy',
    valid: () => ({ callbackUris: { acme: [CALLBACK] } }),
    create: (options) => new OAuthRedirectPolicy(options as never),
    rows: [
      [
        'a typo of callbackUris',
        (valid) => ({ callbackUrls: valid.callbackUris }),
        'configuration.unknown_option',
        'OAuthRedirectPolicy.callbackUrls',
      ],
      [
        'no callback URIs',
        without('callbackUris'),
        'oauth.redirect_policy.invalid',
        'OAuthRedirectPolicy.callbackUris',
      ],
      [
        'a string insecure-localhost flag',
        with_({ allowInsecureLocalhost: 'false' }),
        'configuration.invalid_option',
        'OAuthRedirectPolicy.allowInsecureLocalhost',
      ],
      ...common('OAuthRedirectPolicy'),
    ],
  },
  {
    name: 'OAuthAccountService',
    valid: () => ({ store: accountStore(), tokenEndpoint: tokenEndpoint() }),
    create: (options) => new OAuthAccountService(options as never),
    rows: [
      [
        'no token endpoint',
        without('tokenEndpoint'),
        'oauth.account.service_options',
        'OAuthAccountService.tokenEndpoint',
      ],
      [
        'a typo of tokenEndpoint',
        (valid) => ({ store: valid.store, tokenEndPoint: tokenEndpoint() }),
        'configuration.unknown_option',
        'OAuthAccountService.tokenEndPoint',
      ],
      ...common('OAuthAccountService'),
    ],
  },
  {
    name: 'MemoryOAuthAccountStore',
    valid: () => ({ provider: 'acme', clientId: 'client', protector: newProtector() }),
    create: (options) => new MemoryOAuthAccountStore(options as never),
    rows: [
      [
        'no protector',
        without('protector'),
        'oauth.account.protector_required',
        'MemoryOAuthAccountStore.protector',
      ],
      [
        'a numeric client id',
        with_({ clientId: 1 }),
        'oauth.account.store_options',
        'MemoryOAuthAccountStore.clientId',
      ],
      [
        'a typo of clientId',
        with_({ clientID: 'c' }),
        'configuration.unknown_option',
        'MemoryOAuthAccountStore.clientID',
      ],
      ...common('MemoryOAuthAccountStore'),
    ],
  },
  {
    name: 'drainRevocationRetries',
    valid: () => ({ store: { claimRevocationRetries: async () => [] }, tokenEndpoint: tokenEndpoint() }),
    create: (options) => drainRevocationRetries(options as never),
    rows: [
      ['no store', without('store'), 'oauth.account.drain_options', 'drainRevocationRetries.store'],
      [
        'a string limit',
        with_({ limit: '5' }),
        'configuration.invalid_option',
        'drainRevocationRetries.limit',
      ],
      [
        'a typo of leaseSeconds',
        with_({ lease: 60 }),
        'configuration.unknown_option',
        'drainRevocationRetries.lease',
      ],
      ...common('drainRevocationRetries'),
    ],
  },
  {
    name: 'reencryptOAuthVault',
    valid: () => ({
      stores: [new MemoryOAuthAccountStore({ provider: 'acme', clientId: 'c', protector: newProtector() })],
      protector: newProtector(),
    }),
    create: (options) => reencryptOAuthVault(options as never),
    rows: [
      ['no stores', without('stores'), 'configuration.missing_option', 'reencryptOAuthVault.stores'],
      [
        'a store that cannot list envelopes',
        with_({ stores: [{ provider: 'acme', clientId: 'c' }] }),
        'configuration.invalid_option',
        'reencryptOAuthVault.stores[0]',
      ],
      [
        'a protector that cannot seal',
        with_({ protector: { activeKeyVersion: 'v1' } }),
        'configuration.invalid_option',
        'reencryptOAuthVault.protector',
      ],
      [
        'a batch size of 0',
        with_({ batchSize: 0 }),
        'configuration.invalid_option',
        'reencryptOAuthVault.batchSize',
      ],
      [
        'a typo of batchSize',
        with_({ batch: 10 }),
        'configuration.unknown_option',
        'reencryptOAuthVault.batch',
      ],
      ...common('reencryptOAuthVault'),
    ],
  },
  {
    name: 'AESGCMOAuthTransactionProtector',
    valid: () => ({ activeKey: new OAuthTransactionProtectorKey('v1', randomBytes(32)) }),
    create: (options) => new AESGCMOAuthTransactionProtector(options as never),
    rows: [
      [
        'no active key',
        without('activeKey'),
        'protection.active_key_missing',
        'AESGCMOAuthTransactionProtector.activeKey',
      ],
      [
        'a typo of retainedKeys',
        with_({ retainKeys: [] }),
        'configuration.unknown_option',
        'AESGCMOAuthTransactionProtector.retainKeys',
      ],
      ...common('AESGCMOAuthTransactionProtector'),
    ],
  },
  {
    name: 'loadOAuthTransactionProtectorKey',
    valid: () => ({ version: 'v1', material: randomBytes(32).toString('base64'), encoding: 'base64' }),
    create: (options) => loadOAuthTransactionProtectorKey(options as never),
    rows: [
      [
        'no encoding',
        without('encoding'),
        'protection.key_encoding',
        'loadOAuthTransactionProtectorKey.encoding',
      ],
      [
        'material given as bytes',
        with_({ material: randomBytes(32) }),
        'protection.key_missing',
        'loadOAuthTransactionProtectorKey.material',
      ],
      [
        'a typo of material',
        (valid) => ({ ...without('material')(valid), materials: valid.material }),
        'configuration.unknown_option',
        'loadOAuthTransactionProtectorKey.materials',
      ],
      ...common('loadOAuthTransactionProtectorKey'),
    ],
  },
  {
    name: 'PolicyEvaluator',
    valid: () => ({ mechanisms: [] }),
    create: (options) => new PolicyEvaluator(options as never),
    rows: [
      ['no mechanisms', without('mechanisms'), 'configuration.missing_option', 'PolicyEvaluator.mechanisms'],
      [
        'a resolver that is not a function',
        with_({ authorizationResolver: {} }),
        'configuration.invalid_option',
        'PolicyEvaluator.authorizationResolver',
      ],
      ...common('PolicyEvaluator'),
    ],
  },
  {
    name: 'MCPResourceRegistry',
    valid: () => ({ scheme: 'fw' }),
    create: (options) => new MCPResourceRegistry(options as never),
    rows: [
      ['no scheme', without('scheme'), 'mcp.scheme_invalid', 'MCPResourceRegistry.scheme'],
      [
        'a typo of skillsEnabled',
        with_({ skillEnabled: true }),
        'configuration.unknown_option',
        'MCPResourceRegistry.skillEnabled',
      ],
      ...common('MCPResourceRegistry'),
    ],
  },
  {
    name: 'MCPDispatcher',
    valid: () => ({
      registry: new MCPResourceRegistry({ scheme: 'fw' }),
      serverInfo: { name: 'app', version: '1' },
      openapi: () => ({}),
      reader: async () => ({ status: 200, body: new Uint8Array() }),
    }),
    create: (options) => new MCPDispatcher(options as never),
    rows: [
      ['no reader', without('reader'), 'configuration.missing_option', 'MCPDispatcher.reader'],
      [
        'a typo inside serverInfo',
        with_({ serverInfo: { name: 'a', version: '1', titel: 't' } }),
        'configuration.unknown_option',
        'MCPDispatcher.serverInfo.titel',
      ],
      [
        'a typo of pageSize',
        with_({ pagesize: 5 }),
        'configuration.unknown_option',
        'MCPDispatcher.pagesize',
      ],
      ...common('MCPDispatcher'),
    ],
  },
  {
    name: 'loadSkillCatalog',
    valid: () => ({}),
    create: (options) => loadSkillCatalog(SKILLS, options as never),
    rows: [
      ['a typo of maxDepth', with_({ depth: 2 }), 'configuration.unknown_option', 'loadSkillCatalog.depth'],
      ['a string limit', with_({ maxFileBytes: '1' }), 'mcp.skill_invalid', 'loadSkillCatalog.maxFileBytes'],
      ...common('loadSkillCatalog'),
    ],
  },
  {
    name: 'requiresTenant',
    valid: () => ({}),
    create: (options) => requiresTenant(options as never),
    rows: [
      [
        'a typo of tenantParameter',
        with_({ tenantParam: 'org' }),
        'configuration.unknown_option',
        'requiresTenant.tenantParam',
      ],
      [
        'a numeric parameter',
        with_({ tenantParameter: 1 }),
        'authorization.invalid_guard',
        'requiresTenant.tenantParameter',
      ],
      ...common('requiresTenant'),
    ],
  },
  {
    name: 'requiresTenantRole',
    valid: () => ({ roles: ['admin'] }),
    create: (options) => requiresTenantRole(options as never),
    rows: [
      ['no roles', without('roles'), 'authorization.invalid_guard', 'requiresTenantRole.roles'],
      [
        'a typo of roles',
        (valid) => ({ role: valid.roles }),
        'configuration.unknown_option',
        'requiresTenantRole.role',
      ],
      ...common('requiresTenantRole'),
    ],
  },
  {
    name: 'compileGuards',
    valid: () => ({}),
    create: (options) => compileGuards([], options as never),
    rows: [
      [
        'a typo of stepUpVerifier',
        with_({ stepupVerifier: {} }),
        'configuration.unknown_option',
        'compileGuards.stepupVerifier',
      ],
      ...common('compileGuards'),
    ],
  },
]

function apiKeyService(): ApiKeyService {
  return new ApiKeyService({ store: new MemoryApiKeyStore(), peppers: peppers() })
}

function peppers(): ApiKeyPepperRing {
  return new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) })
}

function accountStore(): MemoryOAuthAccountStore {
  return new MemoryOAuthAccountStore({ provider: 'acme', clientId: 'client', protector: newProtector() })
}

/** The error a call throws or rejects with. */
describeFactoryOptions(factories)

describe('ApiKeyPepperRing retained peppers', () => {
  it('must be an array', async () => {
    const error = await failure(
      () => new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }, 'v0' as never),
    )
    expect(error).toBeInstanceOf(ConfigurationError)
    expect(error).toMatchObject({ code: 'api_key.invalid_pepper', option: 'ApiKeyPepperRing.retained' })
  })
})

describe('unknown option messages', () => {
  it('name the key and suggest the closest known one', async () => {
    const error = await failure(() =>
      workloadJwt({
        issuer: ISSUER,
        audience: 'api',
        jwksUri: JWKS_URI,
        jwks: new CachedJWKSProvider(),
        clockSkewSecond: 5,
      } as never),
    )
    expect((error as Error).message).toBe(
      'workloadJwt: unknown option clockSkewSecond (did you mean clockSkewSeconds?)',
    )
  })

  it('never render option values', async () => {
    const secret = randomBytes(32).toString('base64')
    const error = await failure(() =>
      loadOAuthTransactionProtectorKey({
        version: 'v1',
        material: secret,
        encoding: 'base64',
        pepper: secret,
      } as never),
    )
    expect(error).toMatchObject({ code: 'configuration.unknown_option' })
    expect(JSON.stringify(error)).not.toContain(secret)
    expect((error as Error).message).not.toContain(secret)
  })
})
