import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import {
  AuthorizationDataError,
  AuthorizationSnapshot,
  applyRestrictions,
} from '../../src/authorization/index.js'

const snapshot = AuthorizationSnapshot.from({
  scopes: ['read', 'write'],
  roles: ['admin', 'viewer'],
  capabilities: ['export'],
  teams: ['core'],
  tenants: { A: ['admin', 'viewer'], B: ['viewer'], C: [] },
  attributes: { plan: 'gold' },
})

describe('AuthorizationSnapshot', () => {
  it('answers membership for every axis', () => {
    expect(snapshot.hasScope('read')).toBe(true)
    expect(snapshot.hasScope('delete')).toBe(false)
    expect(snapshot.hasRole('admin')).toBe(true)
    expect(snapshot.hasCapability('export')).toBe(true)
    expect(snapshot.inTeam('core')).toBe(true)
    expect(snapshot.inTenant('C')).toBe(true)
    expect(snapshot.hasTenantRole('A', ['owner', 'admin'])).toBe(true)
    expect(snapshot.hasTenantRole('B', ['admin'])).toBe(false)
    expect(snapshot.hasTenantRole('C', ['admin'])).toBe(false)
    expect(snapshot.tenantRoles('Z')).toEqual([])
  })

  it('is immutable: lists are frozen copies and tenant ids that look like prototype keys are plain data', () => {
    expect(Object.isFrozen(snapshot)).toBe(true)
    expect(() => (snapshot.roles as string[]).push('root')).toThrow(TypeError)
    expect(snapshot.hasRole('root')).toBe(false)
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(snapshot.inTenant(key)).toBe(false)
      expect(snapshot.hasTenantRole(key, ['admin'])).toBe(false)
    }
    const odd = AuthorizationSnapshot.from({ tenants: new Map([['__proto__', ['admin']]]) })
    expect(odd.hasTenantRole('__proto__', ['admin'])).toBe(true)
    expect(JSON.parse(JSON.stringify(odd)).tenants).toEqual(JSON.parse('{"__proto__":["admin"]}'))
  })

  it('rejects malformed names with a typed error', () => {
    const bad = [
      { roles: [''] },
      { roles: [' admin'] },
      { scopes: ['read\n'] },
      { teams: [42 as unknown as string] },
      { roles: 'admin' as unknown as string[] },
      { tenants: { '': ['admin'] } },
      { tenants: { A: ['x'.repeat(257)] } },
      { attributes: [] as unknown as Record<string, unknown> },
    ]
    for (const init of bad) {
      expect(() => AuthorizationSnapshot.from(init)).toThrow(AuthorizationDataError)
    }
  })

  it('prints as plain data', () => {
    expect(inspect(snapshot)).toContain('attributes')
    expect(snapshot.toJSON().tenants).toEqual({ A: ['admin', 'viewer'], B: ['viewer'], C: [] })
  })
})

describe('credential restrictions only narrow', () => {
  const narrowed = (restrictions: Parameters<typeof applyRestrictions>[1]) =>
    applyRestrictions(snapshot, restrictions).toJSON()

  it('leaves the snapshot unchanged without bounds', () => {
    expect(narrowed([])).toEqual(snapshot.toJSON())
    expect(narrowed([undefined, {}])).toEqual(snapshot.toJSON())
  })

  it('intersects each bounded axis and never adds a grant the snapshot lacks', () => {
    expect(
      narrowed([
        {
          scopes: ['read', 'delete'],
          roles: ['viewer', 'root'],
          capabilities: [],
          teams: ['core', 'other'],
        },
      ]),
    ).toEqual({
      scopes: ['read'],
      roles: ['viewer'],
      capabilities: [],
      teams: ['core'],
      tenants: { A: ['viewer'], B: ['viewer'], C: [] },
      attributes: { plan: 'gold' },
    })
  })

  it('drops tenants outside a tenant bound and intersects tenant roles', () => {
    expect(narrowed([{ tenants: { A: ['viewer', 'owner'], Z: ['admin'] } }]).tenants).toEqual({
      A: ['viewer'],
    })
    expect(narrowed([{ tenants: {} }]).tenants).toEqual({})
  })

  it('intersects several credentials in any order', () => {
    const first = { scopes: ['read', 'write'], tenants: { A: ['admin', 'viewer'], B: ['viewer'] } }
    const second = { scopes: ['write'], tenants: { A: ['admin'] } }
    expect(narrowed([first, second])).toEqual(narrowed([second, first]))
    expect(narrowed([first, second])).toMatchObject({ scopes: ['write'], tenants: { A: ['admin'] } })
  })

  it('fails closed on a malformed bound', () => {
    expect(narrowed([{ scopes: 'read' as unknown as string[] }]).scopes).toEqual([])
    expect(narrowed([{ tenants: null as unknown as Record<string, string[]> }]).tenants).toEqual({})
  })
})
