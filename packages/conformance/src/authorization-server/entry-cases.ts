import type { OAuthServerEntry, OAuthServerEntryKey } from '@portcullis/core/authorization-server'
import { isPortcullisError } from '@portcullis/core/errors'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  canonicalJson,
  freshAccount,
  freshId,
  grantEntry,
  grantToken,
  HOUR,
  MINUTE,
  type OAuthServerStoreContext,
  time,
} from './fixture.js'

type Case = ConformanceCase<OAuthServerStoreContext>

/** A payload that exercises what JSON can hold: nesting, arrays, unicode, numbers, null, empty containers. */
function richPayload(id: string): Record<string, unknown> {
  return {
    jti: id,
    kind: 'Session',
    accountId: 'acc-ünïcödé-名前',
    nested: { deeper: { deepest: [1, 2.5, -3e-7, 1e21, { x: [null, true, false] }] }, empty: {} },
    list: [],
    unicode: 'emoji 🔐 · RTL שלום · combining é · astral 𝔘 · quote " backslash \\ newline \n tab \t',
    'key with spaces and 🔑': 'value',
    max: Number.MAX_SAFE_INTEGER,
    zero: 0,
    nothing: null,
  }
}

async function codeOf(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call()
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'untyped-error'
  }
}

export const entryCases: readonly Case[] = [
  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.round-trip',
    'an entry comes back as saved: model, id, expiry and a payload equal as JSON, never a shared object',
    async ({ fixture: { store }, clock }, check) => {
      const id = freshId()
      const payload = richPayload(id)
      const expiresAt = new Date(clock.read() + HOUR + 123)
      await store.upsert({ model: 'Session', id, payload, expiresAt })
      const found = await store.find('Session', { id })
      check(found !== undefined, 'the entry is not found by id')
      if (found === undefined) return
      check(found.model === 'Session' && found.id === id, `found ${found.model}/${found.id}`)
      check(canonicalJson(found.payload) === canonicalJson(payload), 'the payload differs as JSON')
      check(time(found.expiresAt) === expiresAt.getTime(), `expiresAt ${found.expiresAt?.toISOString()}`)
      check(found.consumedAt === undefined, 'a fresh entry is consumed')
      ;(found.payload.nested as { empty: Record<string, unknown> }).empty.injected = true
      const again = await store.find('Session', { id })
      check(canonicalJson(again?.payload) === canonicalJson(payload), 'a find handed out a live payload')
      const forever = freshId()
      await store.upsert({
        model: 'Client',
        id: forever,
        payload: { client_id: forever },
        expiresAt: undefined,
      })
      clock.advance(10 * 365 * 24 * HOUR)
      const client = await store.find('Client', { id: forever })
      check(
        client !== undefined && client.expiresAt === undefined,
        'an entry without expiry is lost or dated',
      )
      const replaced = { ...payload, extra: 'second version' }
      await store.upsert({ model: 'Session', id, payload: replaced, expiresAt: undefined })
      const second = await store.find('Session', { id })
      check(canonicalJson(second?.payload) === canonicalJson(replaced), 'upsert did not replace the payload')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.find-by-key',
    'find looks up by id, interaction uid or user code within one model; a malformed key finds nothing',
    async ({ fixture: { store }, clock }, check) => {
      const expiresAt = new Date(clock.read() + HOUR)
      const uid = freshId()
      const userCode = `${freshId().slice(0, 4)}-${freshId().slice(0, 4)}`
      const interaction = freshId()
      const device = freshId()
      await store.upsert({
        model: 'Interaction',
        id: interaction,
        payload: { uid, kind: 'Interaction' },
        expiresAt,
      })
      await store.upsert({
        model: 'DeviceCode',
        id: device,
        payload: { userCode, kind: 'DeviceCode' },
        expiresAt,
      })
      // The same id in another model is another entry.
      await store.upsert({ model: 'Session', id: interaction, payload: { kind: 'Session' }, expiresAt })
      check((await store.find('Interaction', { uid }))?.id === interaction, 'not found by uid')
      check((await store.find('DeviceCode', { userCode }))?.id === device, 'not found by user code')
      check((await store.find('Session', { id: interaction }))?.payload.kind === 'Session', 'models mixed')
      check((await store.find('Interaction', { id: interaction }))?.payload.uid === uid, 'models mixed')
      check((await store.find('Session', { uid })) === undefined, 'a uid found an entry of another model')
      check((await store.find('Interaction', { uid: freshId() })) === undefined, 'an unknown uid found one')
      check((await store.find('DeviceCode', { userCode: 'NOPE-NOPE' })) === undefined, 'unknown user code')
      const malformed: unknown[] = [
        {},
        null,
        { id: '' },
        { id: 'x'.repeat(256) },
        { id: `${interaction}\u0000` },
        { uid: '' },
        { uid: '\ud800' },
        { userCode: 42 },
      ]
      for (const key of malformed) {
        let found: unknown
        try {
          found = await store.find('Interaction', key as OAuthServerEntryKey)
        } catch (error) {
          found = error
        }
        check(found === undefined, `the key ${JSON.stringify(key)} answered ${String(found)}`)
      }
      check((await store.consume('Interaction', '')) === 'missing', 'consume of an empty id')
      check((await store.consume('Interaction', 'a\u0000b')) === 'missing', 'consume of an id with NUL')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.expiry',
    'an entry at or past its expiresAt is never returned: not by find (id, uid, user code), consume, status or list',
    async ({ fixture, clock }, check) => {
      const { store } = fixture
      const accountId = await freshAccount(fixture)
      const grant = grantEntry(accountId, clock, { lifetimeMs: 30 * MINUTE })
      await store.upsert(grant)
      const uid = freshId()
      const userCode = freshId().slice(0, 8)
      const lifetime = { expiresAt: new Date(clock.read() + 10 * MINUTE) }
      const interaction: OAuthServerEntry = {
        model: 'Interaction',
        id: freshId(),
        payload: { uid },
        ...lifetime,
      }
      const device: OAuthServerEntry = {
        model: 'DeviceCode',
        id: freshId(),
        payload: { userCode },
        ...lifetime,
      }
      const code = { ...grantToken('AuthorizationCode', grant, clock), ...lifetime }
      const past: OAuthServerEntry = {
        model: 'RefreshToken',
        id: freshId(),
        payload: { kind: 'RefreshToken' },
        expiresAt: new Date(clock.read() - 1),
      }
      for (const entry of [interaction, device, code, past]) await store.upsert(entry)
      check((await store.find('RefreshToken', { id: past.id })) === undefined, 'saved already expired, found')
      check((await store.consume('RefreshToken', past.id)) === 'missing', 'consumed an expired entry')
      check((await store.find('Interaction', { uid })) !== undefined, 'a live interaction is not found')
      clock.advance(10 * MINUTE)
      // Exactly at expiresAt: expired.
      check((await store.find('Interaction', { uid })) === undefined, 'found by uid at its expiry')
      check((await store.find('Interaction', { id: interaction.id })) === undefined, 'found by id at expiry')
      check((await store.find('DeviceCode', { userCode })) === undefined, 'found by user code at its expiry')
      check((await store.find('AuthorizationCode', { id: code.id })) === undefined, 'an expired code found')
      check((await store.consume('AuthorizationCode', code.id)) === 'missing', 'an expired code consumed')
      check((await store.status(grant.id)) !== undefined, 'the grant ended before its expiry')
      check((await store.list(accountId)).length === 1, 'the live grant is not listed')
      clock.advance(20 * MINUTE + 1)
      check((await store.status(grant.id)) === undefined, 'an expired grant is active')
      check((await store.list(accountId)).length === 0, 'an expired grant is listed')
      check((await store.find('Grant', { id: grant.id })) === undefined, 'an expired grant is found')
      check((await store.disconnect(accountId, grant.id)) === false, 'an expired grant was disconnected')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.consume-once',
    'consume answers consumed once, then already-consumed (a code redeemed or a refresh token used again), missing when unknown',
    async ({ fixture: { store }, clock }, check) => {
      const entry: OAuthServerEntry = {
        model: 'RefreshToken',
        id: freshId(),
        payload: { kind: 'RefreshToken' },
        expiresAt: new Date(clock.read() + HOUR),
      }
      await store.upsert(entry)
      check((await store.consume('RefreshToken', entry.id)) === 'consumed', 'the first consume failed')
      const second = await store.consume('RefreshToken', entry.id)
      check(second === 'already-consumed', `the second consume answered ${second}`)
      check((await store.consume('RefreshToken', freshId())) === 'missing', 'an unknown id is not missing')
      check((await store.consume('AccessToken', entry.id)) === 'missing', 'consume crossed models')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.consume-race',
    'of 20 concurrent consume calls for one entry exactly one answers consumed, the others already-consumed',
    async ({ fixture: { store }, clock }, check) => {
      const entry: OAuthServerEntry = {
        model: 'AuthorizationCode',
        id: freshId(),
        payload: { kind: 'AuthorizationCode' },
        expiresAt: new Date(clock.read() + MINUTE),
      }
      await store.upsert(entry)
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, () => store.consume('AuthorizationCode', entry.id)),
      )
      const consumed = outcomes.filter((outcome) => outcome === 'consumed').length
      const again = outcomes.filter((outcome) => outcome === 'already-consumed').length
      check(consumed === 1 && again === 19, `consumed ${consumed}, already-consumed ${again} of 20`)
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.consumed-kept',
    'a consumed entry is still found, with consumedAt when it was consumed; replacing it keeps consumedAt',
    async ({ fixture: { store }, clock }, check) => {
      const entry: OAuthServerEntry = {
        model: 'AuthorizationCode',
        id: freshId(),
        payload: { kind: 'AuthorizationCode', step: 1 },
        expiresAt: new Date(clock.read() + HOUR),
      }
      await store.upsert(entry)
      clock.advance(1_234)
      const consumedAt = clock.read()
      await store.consume('AuthorizationCode', entry.id)
      clock.advance(5_000)
      const found = await store.find('AuthorizationCode', { id: entry.id })
      check(found !== undefined, 'a consumed entry is gone')
      check(time(found?.consumedAt) === consumedAt, `consumedAt ${found?.consumedAt?.toISOString()}`)
      await store.upsert({ ...entry, payload: { kind: 'AuthorizationCode', step: 2 } })
      const replaced = await store.find('AuthorizationCode', { id: entry.id })
      check(replaced?.payload.step === 2, 'the entry was not replaced')
      check(time(replaced?.consumedAt) === consumedAt, 'replacing the entry lost its consumedAt')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.destroy',
    'destroy removes that entry only (model and id); destroying an unknown entry is a no-op',
    async ({ fixture: { store }, clock }, check) => {
      const id = freshId()
      const expiresAt = new Date(clock.read() + HOUR)
      await store.upsert({ model: 'Session', id, payload: { kind: 'Session' }, expiresAt })
      await store.upsert({ model: 'Interaction', id, payload: { kind: 'Interaction' }, expiresAt })
      await store.destroy('Session', id)
      check((await store.find('Session', { id })) === undefined, 'a destroyed entry is found')
      check((await store.consume('Session', id)) === 'missing', 'a destroyed entry is consumed')
      check((await store.find('Interaction', { id })) !== undefined, 'destroy removed another model')
      await store.destroy('Session', freshId())
      await store.destroy('Session', '')
      check((await store.find('Interaction', { id })) !== undefined, 'a no-op destroy removed something')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.invalid-entry',
    'an entry no store can keep is refused with oauth_server.invalid_entry, and nothing is saved',
    async ({ fixture: { store }, clock }, check) => {
      const id = freshId()
      const expiresAt = new Date(clock.read() + HOUR)
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      const bad: [string, unknown][] = [
        ['no entry', null],
        ['empty model', { model: '', id, payload: {}, expiresAt }],
        ['model with a space', { model: 'Access Token', id, payload: {}, expiresAt }],
        ['empty id', { model: 'Session', id: '', payload: {}, expiresAt }],
        ['256-character id', { model: 'Session', id: 'i'.repeat(256), payload: {}, expiresAt }],
        ['id with NUL', { model: 'Session', id: `${id}\u0000`, payload: {}, expiresAt }],
        ['null payload', { model: 'Session', id, payload: null, expiresAt }],
        ['array payload', { model: 'Session', id, payload: [1], expiresAt }],
        ['cyclic payload', { model: 'Session', id, payload: cyclic, expiresAt }],
        ['BigInt in payload', { model: 'Session', id, payload: { n: 1n }, expiresAt }],
        ['NUL in payload', { model: 'Session', id, payload: { a: ['x\u0000y'] }, expiresAt }],
        ['NUL in a key', { model: 'Session', id, payload: { 'k\u0000': 1 }, expiresAt }],
        ['lone surrogate', { model: 'Session', id, payload: { a: '\udc00' }, expiresAt }],
        ['invalid date', { model: 'Session', id, payload: {}, expiresAt: new Date(Number.NaN) }],
        ['number expiry', { model: 'Session', id, payload: {}, expiresAt: clock.read() + HOUR }],
      ]
      for (const [label, entry] of bad) {
        const code = await codeOf(() => store.upsert(entry as OAuthServerEntry))
        check(code === 'oauth_server.invalid_entry', `${label}: ${code ?? 'accepted'}`)
      }
      check((await store.find('Session', { id })) === undefined, 'a refused entry was saved')
      const revoke = await codeOf(() => store.revokeGrant(''))
      check(revoke === 'oauth_server.invalid_entry', `revokeGrant(''): ${revoke ?? 'accepted'}`)
    },
  ),
]
