import type { OAuthServerEntry } from '@portcullis/core/authorization-server'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { freshId, HOUR, type OAuthServerStoreContext } from './fixture.js'

type Case = ConformanceCase<OAuthServerStoreContext>

const refreshToken = (expiresAt: Date, grantId = freshId()): OAuthServerEntry => {
  const id = freshId()
  return { model: 'RefreshToken', id, payload: { jti: id, kind: 'RefreshToken', grantId }, expiresAt }
}

export const rotationCases: readonly Case[] = [
  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.rotate-once',
    'rotate consumes the entry and saves its replacement; a second rotation of the same entry, or of an unknown one, answers already-consumed or missing and saves nothing',
    async ({ fixture: { store }, clock }, check) => {
      const expiresAt = new Date(clock.read() + HOUR)
      const old = refreshToken(expiresAt)
      await store.upsert(old)
      const next = refreshToken(expiresAt, String(old.payload.grantId))
      const first = await store.rotate('RefreshToken', old.id, next)
      check(first === 'consumed', `the first rotation answered ${first}`)
      check((await store.find('RefreshToken', { id: old.id }))?.consumedAt !== undefined, 'not consumed')
      const saved = await store.find('RefreshToken', { id: next.id })
      check(saved?.payload.jti === next.id, 'the replacement was not saved')
      check(saved?.consumedAt === undefined, 'the replacement was saved consumed')
      const late = refreshToken(expiresAt)
      const second = await store.rotate('RefreshToken', old.id, late)
      check(second === 'already-consumed', `the second rotation answered ${second}`)
      check(
        (await store.find('RefreshToken', { id: late.id })) === undefined,
        'a reuse saved its replacement',
      )
      const stray = refreshToken(expiresAt)
      const missing = await store.rotate('RefreshToken', freshId(), stray)
      check(missing === 'missing', `an unknown entry's rotation answered ${missing}`)
      check((await store.find('RefreshToken', { id: stray.id })) === undefined, 'a missing entry saved')
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.rotate-race',
    'of 20 concurrent rotations of one entry exactly one answers consumed and only its replacement is saved',
    async ({ fixture: { store }, clock }, check) => {
      const expiresAt = new Date(clock.read() + HOUR)
      const old = refreshToken(expiresAt)
      await store.upsert(old)
      const replacements = Array.from({ length: 20 }, () => refreshToken(expiresAt))
      const outcomes = await Promise.all(
        replacements.map((replacement) => store.rotate('RefreshToken', old.id, replacement)),
      )
      const consumed = outcomes.filter((outcome) => outcome === 'consumed').length
      const again = outcomes.filter((outcome) => outcome === 'already-consumed').length
      check(consumed === 1 && again === 19, `consumed ${consumed}, already-consumed ${again} of 20`)
      const saved = await Promise.all(
        replacements.map(
          async (replacement) => (await store.find('RefreshToken', { id: replacement.id })) !== undefined,
        ),
      )
      const winner = outcomes.indexOf('consumed')
      check(
        saved.filter(Boolean).length === 1 && saved[winner] === true,
        `${saved.filter(Boolean).length} replacements saved, the winner's: ${saved[winner]}`,
      )
    },
  ),

  conformanceCase<OAuthServerStoreContext>(
    'oauth_server.rotate-refused',
    'a rotation whose replacement the store refuses throws and leaves the entry unconsumed (a retry is no reuse)',
    async ({ fixture: { store }, clock }, check) => {
      const expiresAt = new Date(clock.read() + HOUR)
      const old = refreshToken(expiresAt)
      await store.upsert(old)
      const refused = { ...refreshToken(expiresAt), payload: { jti: 'x', bad: 'nul \u0000 inside' } }
      let threw = false
      try {
        await store.rotate('RefreshToken', old.id, refused)
      } catch {
        threw = true
      }
      check(threw, 'a replacement with a NUL character was accepted')
      check((await store.find('RefreshToken', { id: old.id }))?.consumedAt === undefined, 'consumed anyway')
      const retry = await store.rotate('RefreshToken', old.id, refreshToken(expiresAt))
      check(retry === 'consumed', `the retry answered ${retry}`)
    },
  ),
]
