import { describe, expect, it } from 'vitest'
import type { Principal } from '../../src/authentication/index.js'
import {
  AuthorizationSnapshot,
  applyRestrictions,
  type Guard,
  type GuardContext,
  guard,
  type RouteParameters,
  requiresAllOf,
  requiresAnyOf,
  requiresAtLeast,
  requiresAuthenticated,
  requiresCapability,
  requiresOneOf,
  requiresRole,
  requiresScope,
  requiresStepUp,
  requiresTeam,
  requiresTenant,
  requiresTenantRole,
} from '../../src/authorization/index.js'
import { ConfigurationError } from '../../src/errors/index.js'

const alice: Principal = { id: 'alice', kind: 'user' }
const snapshotA = AuthorizationSnapshot.from({
  scopes: ['read'],
  roles: ['admin'],
  capabilities: ['export'],
  teams: ['core'],
  tenants: { A: ['admin', 'viewer'], M: [] },
})

function context(params: RouteParameters = {}, principal: Principal | null = alice, snapshot = snapshotA) {
  const value: GuardContext = { principal, snapshot, evidence: [], params }
  return value
}

const outcome = (g: Guard, ctx: GuardContext) => {
  const decision = g.check(ctx)
  return decision.granted ? 'granted' : decision.denial
}

describe('leaf guards', () => {
  const cases: [string, Guard, RouteParameters, 'granted' | 'forbidden'][] = [
    ['authenticated', requiresAuthenticated(), {}, 'granted'],
    ['role held', requiresRole('admin'), {}, 'granted'],
    ['role missing', requiresRole('owner'), {}, 'forbidden'],
    ['scope held', requiresScope('read'), {}, 'granted'],
    ['scope missing', requiresScope('write'), {}, 'forbidden'],
    ['capability held', requiresCapability('export'), {}, 'granted'],
    ['capability missing', requiresCapability('import'), {}, 'forbidden'],
    ['team held', requiresTeam('core'), {}, 'granted'],
    ['team missing', requiresTeam('ops'), {}, 'forbidden'],
    ['tenant member', requiresTenant(), { tenantId: 'A' }, 'granted'],
    ['tenant member without roles', requiresTenant(), { tenantId: 'M' }, 'granted'],
    ['forged path tenant', requiresTenant(), { tenantId: 'B' }, 'forbidden'],
    ['tenant role held', requiresTenantRole({ roles: ['owner', 'admin'] }), { tenantId: 'A' }, 'granted'],
    ['forged path tenant (role)', requiresTenantRole({ roles: ['admin'] }), { tenantId: 'B' }, 'forbidden'],
    ['member without the role', requiresTenantRole({ roles: ['admin'] }), { tenantId: 'M' }, 'forbidden'],
    [
      'global role is not a tenant role',
      requiresTenantRole({ roles: ['admin'] }),
      { tenantId: 'M' },
      'forbidden',
    ],
    [
      'custom param',
      requiresTenantRole({ tenantParameter: 'org', roles: ['viewer'] }),
      { org: 'A' },
      'granted',
    ],
    ['param missing', requiresTenantRole({ roles: ['admin'] }), {}, 'forbidden'],
    ['param empty', requiresTenant(), { tenantId: '' }, 'forbidden'],
    ['wildcard param (array)', requiresTenant(), { tenantId: ['A'] }, 'forbidden'],
    ['prototype key as tenant', requiresTenant(), { tenantId: '__proto__' }, 'forbidden'],
    ['custom guard true', guard('even', ({ principal }) => principal?.id === 'alice'), {}, 'granted'],
    ['custom guard false', guard('odd', () => false), {}, 'forbidden'],
  ]
  for (const [label, g, params, expected] of cases) {
    it(`${label}: ${expected}; anonymous: unauthenticated`, () => {
      expect(outcome(g, context(params))).toBe(expected)
      expect(outcome(g, context(params, null, AuthorizationSnapshot.empty))).toBe('unauthenticated')
    })
  }

  it('reads the tenant only from the named path parameter', () => {
    const g = requiresTenantRole({ tenantParameter: 'tenantId', roles: ['admin'] })
    expect(outcome(g, context({ tenantId: 'B', org: 'A' }))).toBe('forbidden')
    expect(g.parameters).toEqual(['tenantId'])
  })

  it('denies a tenant role removed by a credential restriction', () => {
    const g = requiresTenantRole({ roles: ['admin'] })
    const restricted = applyRestrictions(snapshotA, [{ tenants: { A: ['viewer'] } }])
    expect(outcome(g, context({ tenantId: 'A' }))).toBe('granted')
    expect(outcome(g, context({ tenantId: 'A' }, alice, restricted))).toBe('forbidden')
    const roleBound = applyRestrictions(snapshotA, [{ roles: ['viewer'] }])
    expect(outcome(g, context({ tenantId: 'A' }, alice, roleBound))).toBe('forbidden')
  })

  it('keeps the failing grant out of anything but the internal code', () => {
    const decision = requiresRole('secret-role').check(context())
    expect(decision).toEqual({
      granted: false,
      denial: 'forbidden',
      code: 'authorization.missing_role',
      path: ['role(secret-role)'],
    })
  })
})

describe('combinators over three children', () => {
  // Children grant according to bits of `mask` (bit i -> child i grants).
  const children = (mask: number) =>
    [0, 1, 2].map((i) => (mask & (1 << i) ? requiresRole('admin') : requiresRole(`missing-${i}`)))
  const distinct = (mask: number) =>
    children(mask).map((child, i) => guard(`c${i}`, (ctx) => child.check(ctx).granted))

  const expectations: [string, (gs: Guard[]) => Guard, (count: number) => boolean][] = [
    ['requiresAllOf', (gs) => requiresAllOf(...gs), (n) => n === 3],
    ['requiresAnyOf', (gs) => requiresAnyOf(...gs), (n) => n >= 1],
    ['requiresOneOf', (gs) => requiresOneOf(...gs), (n) => n === 1],
    ['requiresAtLeast(2)', (gs) => requiresAtLeast(2, ...gs), (n) => n >= 2],
    ['requiresAtLeast(1)', (gs) => requiresAtLeast(1, ...gs), (n) => n >= 1],
    ['requiresAtLeast(3)', (gs) => requiresAtLeast(3, ...gs), (n) => n === 3],
  ]
  for (const [label, combine, grants] of expectations) {
    it(`${label} truth table`, () => {
      for (let mask = 0; mask < 8; mask += 1) {
        const count = [0, 1, 2].filter((i) => mask & (1 << i)).length
        const g = combine(distinct(mask))
        expect(outcome(g, context()), `mask ${mask}`).toBe(grants(count) ? 'granted' : 'forbidden')
        expect(outcome(g, context({}, null, AuthorizationSnapshot.empty))).toBe('unauthenticated')
      }
    })
  }

  it('reports the path of the first failing child, and one_of_mismatch when several match', () => {
    const nested = requiresAllOf(
      requiresAuthenticated(),
      requiresAnyOf(requiresRole('x'), requiresScope('y')),
    )
    expect(nested.check(context())).toMatchObject({
      granted: false,
      code: 'authorization.missing_role',
      path: ['allOf', 1, 'anyOf', 0, 'role(x)'],
    })
    expect(requiresOneOf(requiresRole('admin'), requiresScope('read')).check(context())).toMatchObject({
      denial: 'forbidden',
      code: 'authorization.one_of_mismatch',
    })
  })

  it('collects the path parameters of nested guards', () => {
    const g = requiresAnyOf(requiresTenant(), requiresTenantRole({ tenantParameter: 'org', roles: ['a'] }))
    expect(g.parameters).toEqual(['tenantId', 'org'])
  })
})

describe('invalid compositions are startup errors', () => {
  const fails = (fn: () => unknown) => expect(fn).toThrow(ConfigurationError)

  it('rejects bad leaf arguments', () => {
    fails(() => requiresRole(''))
    fails(() => requiresScope(' read'))
    fails(() => requiresCapability('a\tb'))
    fails(() => requiresTeam(undefined as unknown as string))
    fails(() => requiresTenantRole({ roles: [] }))
    fails(() => requiresTenantRole({ roles: ['admin', 'admin'] }))
    fails(() => requiresTenantRole({ roles: 'admin' as unknown as string[] }))
    fails(() => requiresTenantRole({ tenantParameter: '', roles: ['admin'] }))
    fails(() => requiresTenant({ tenantParameter: ' id' }))
    fails(() => guard('', () => true))
    fails(() => requiresStepUp(''))
    fails(() => requiresStepUp('has space'))
  })

  it('rejects empty, duplicate, out-of-range and step-up children', () => {
    const admin = requiresRole('admin')
    fails(() => requiresAllOf())
    fails(() => requiresAnyOf(admin, admin))
    fails(() => requiresOneOf(admin, requiresRole('admin')))
    fails(() => requiresAtLeast(0, admin, requiresScope('a')))
    fails(() => requiresAtLeast(3, admin, requiresScope('a')))
    fails(() => requiresAtLeast(Number.NaN, admin))
    fails(() => requiresAnyOf(admin, requiresStepUp('delete') as unknown as Guard))
    fails(() => requiresAllOf({ kind: 'guard' } as unknown as Guard, null as unknown as Guard))
  })
})
