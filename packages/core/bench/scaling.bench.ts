// How cost grows (report only): throughput of the policy engine with 1, 4 and 16 mechanisms registered,
// of the shared JWKS provider with 1 and 100 issuers registered, and of MCP resource resolution with 10,
// 1,000 and 10,000 resources and templates registered, each measured at every size in one
// run against the smallest size as the baseline. A ratio near 1.0x at every size is constant cost; a
// ratio falling with the size is a regression to linear cost.
import { generateKeyPairSync } from 'node:crypto'
import { compareOps, finish, reportTable } from '@portcullis/bench'
import {
  type AuthenticationMechanism,
  authenticated,
  CachedJWKSProvider,
  type CredentialSource,
  type JWKSFetcher,
  MCPResourceRegistry,
  none,
  PolicyEvaluator,
  RequestEvaluation,
  required,
} from '@portcullis/core'

/** A mechanism that reads its own header, as API-key or bearer mechanisms do, and answers synchronously. */
function headerMechanism(index: number): AuthenticationMechanism {
  const header = `x-credential-${index}`
  return {
    name: `mechanism-${index}`,
    securityScheme: { type: 'apiKey', in: 'header', name: header },
    authenticate(source) {
      const value = source.header(header)
      if (value === undefined) return none()
      return authenticated(
        { id: `user-${value}`, kind: 'user' },
        { mechanism: `mechanism-${index}`, credentialType: 'api-key' },
      )
    },
  }
}

/** One evaluation of `required()` for a request whose credential belongs to the last mechanism. */
function policyCase(mechanisms: number) {
  const evaluator = new PolicyEvaluator({
    mechanisms: Array.from({ length: mechanisms }, (_, index) => headerMechanism(index)),
  })
  const policy = evaluator.compile(required())
  const header = `x-credential-${mechanisms - 1}`
  const source: CredentialSource = {
    header: (name) => (name === header ? 'alice' : undefined),
    cookie: () => undefined,
    method: 'GET',
    path: '/items',
  }
  return () => {
    const outcome = new RequestEvaluation(evaluator, source).evaluate(policy)
    if (outcome instanceof Promise) throw new Error('expected a synchronous outcome')
    if (outcome.kind !== 'granted') throw new Error(`expected a grant, got ${outcome.kind}`)
  }
}

const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const jwks = JSON.stringify({
  keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }],
})
const fetcher: JWKSFetcher = {
  fetch: async () => ({ status: 'ok', body: jwks, cacheControl: 'max-age=3600' }),
}

/** One cached key selection for the last of `issuers` registered sources. */
async function jwksCase(issuers: number) {
  const provider = new CachedJWKSProvider({ fetcher })
  for (let index = 0; index < issuers; index += 1) {
    provider.register({
      issuer: `https://issuer-${index}.example/`,
      jwksUri: `https://issuer-${index}.example/jwks.json`,
      algorithms: ['ES256'],
    })
  }
  const request = {
    issuer: `https://issuer-${issuers - 1}.example/`,
    jwksUri: `https://issuer-${issuers - 1}.example/jwks.json`,
    kid: 'k1',
    alg: 'ES256' as const,
  }
  const warm = await provider.selectKey(request)
  if (warm.kind !== 'key') throw new Error(`no key: ${warm.kind}`)
  return async () => {
    const selection = await provider.selectKey(request)
    if (selection.kind !== 'key') throw new Error(`no key: ${selection.kind}`)
  }
}

/** Resolving the last concrete resource and the last template's URI among `size` of each. */
function registryCase(size: number) {
  const registry = new MCPResourceRegistry<number>({ scheme: 'app' })
  for (let index = 0; index < size; index += 1) {
    registry.register({ name: `resource-${index}`, target: index })
    registry.register({ name: `template-${index}`, template: `app://t${index}/items/{id}`, target: index })
  }
  const concrete = `app://resource-${size - 1}`
  const templated = `app://t${size - 1}/items/42`
  return () => {
    if (registry.resolve(concrete) === undefined || registry.resolve(templated) === undefined) {
      throw new Error('not resolved')
    }
  }
}

const rows: string[][] = []
const policyBaseline = policyCase(1)
for (const size of [1, 4, 16]) {
  const result = await compareOps({
    title: `policy engine: required() with ${size} mechanism(s) registered vs 1`,
    baseline: { name: '1 mechanism', fn: policyBaseline },
    candidate: { name: `${size} mechanisms`, fn: policyCase(size) },
    durationMs: 300,
    rounds: 3,
  })
  rows.push([
    'policy engine',
    `${size} mechanisms`,
    result.candidate.perSecond.toFixed(0),
    `${result.ratio.toFixed(2)}x`,
  ])
}
const jwksBaseline = await jwksCase(1)
for (const size of [1, 100]) {
  const result = await compareOps({
    title: `JWKS provider: cached key of one of ${size} issuer(s) vs 1`,
    baseline: { name: '1 issuer', fn: jwksBaseline },
    candidate: { name: `${size} issuers`, fn: await jwksCase(size) },
    durationMs: 300,
    rounds: 3,
  })
  rows.push([
    'JWKS provider',
    `${size} issuers`,
    result.candidate.perSecond.toFixed(0),
    `${result.ratio.toFixed(2)}x`,
  ])
}
const registryBaseline = registryCase(10)
for (const size of [10, 1_000, 10_000]) {
  const result = await compareOps({
    title: `MCP registry: resolve a resource and a template URI among ${size} of each vs 10`,
    baseline: { name: '10 of each', fn: registryBaseline },
    candidate: { name: `${size} of each`, fn: size === 10 ? registryBaseline : registryCase(size) },
    durationMs: 300,
    rounds: 3,
  })
  rows.push([
    'MCP registry',
    `${size} resources + ${size} templates`,
    result.candidate.perSecond.toFixed(0),
    `${result.ratio.toFixed(2)}x`,
  ])
}
reportTable(
  'How cost grows: policy engine, JWKS provider, MCP registry',
  ['Component', 'Size', 'Operations/s', 'vs smallest'],
  rows,
)
finish()
