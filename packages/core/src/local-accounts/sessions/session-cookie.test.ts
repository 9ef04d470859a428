import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { LocalAccountError } from '../errors.js'
import { newOpaqueToken } from '../opaque-token.js'
import {
  clearSessionCookie,
  readSessionCookie,
  serializeSessionCookie,
  sessionCookie,
} from './session-cookie.js'

const VALUE = newOpaqueToken()

describe('sessionCookie', () => {
  it('defaults to a __Host- HttpOnly Secure SameSite=Lax cookie on Path=/', () => {
    const cookie = sessionCookie()
    expect(cookie).toEqual({
      name: '__Host-portcullis-session',
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
      path: '/',
      maxAgeSeconds: undefined,
    })
    expect(serializeSessionCookie(cookie, VALUE)).toBe(
      `__Host-portcullis-session=${VALUE}; Path=/; HttpOnly; Secure; SameSite=Lax`,
    )
    expect(clearSessionCookie(cookie)).toBe(
      '__Host-portcullis-session=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    )
  })

  it('supports Strict, a persistent lifetime and a custom __Host- name', () => {
    const cookie = sessionCookie({ name: '__Host-app', sameSite: 'Strict', maxAgeSeconds: 3600 })
    expect(serializeSessionCookie(cookie, VALUE)).toBe(
      `__Host-app=${VALUE}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=3600`,
    )
    expect(sessionCookie({ publicOrigin: 'https://app.example' }).secure).toBe(true)
  })

  it('drops Secure and the prefix only for a loopback public origin in insecure development', () => {
    for (const publicOrigin of [
      'http://localhost:3000',
      'http://127.0.0.1',
      'http://127.8.9.10:8080',
      'http://[::1]:3000',
    ]) {
      const cookie = sessionCookie({ insecureLocalhostDevelopment: true, publicOrigin })
      expect(cookie).toMatchObject({ name: 'portcullis-session', secure: false })
      expect(serializeSessionCookie(cookie, VALUE)).toBe(
        `portcullis-session=${VALUE}; Path=/; HttpOnly; SameSite=Lax`,
      )
    }
    for (const publicOrigin of [
      undefined,
      'https://app.example',
      'http://localhost.evil.example',
      'http://128.0.0.1',
      'http://[::2]',
      'http://0.0.0.0',
      'file:///tmp',
      'not a url',
    ]) {
      expect(() =>
        sessionCookie({
          insecureLocalhostDevelopment: true,
          ...(publicOrigin === undefined ? {} : { publicOrigin }),
        }),
      ).toThrow(ConfigurationError)
    }
    expect(() =>
      sessionCookie({
        insecureLocalhostDevelopment: true,
        publicOrigin: 'http://localhost',
        name: '__Host-x',
      }),
    ).toThrow(ConfigurationError)
  })

  it('refuses bad names, a missing __Host- prefix, plain-http public origins and silly lifetimes', () => {
    for (const options of [
      { name: 'no spaces allowed' },
      { name: 'semi;colon' },
      { name: '' },
      { name: 'portcullis-session' },
      { name: '__Secure-portcullis' },
      { publicOrigin: 'http://app.example' },
      { publicOrigin: 'https://' },
      { insecureLocalHostDevelopment: true } as never,
      { secure: false } as never,
      { sameSite: 'None' as 'Lax' },
      { maxAgeSeconds: 0 },
      { maxAgeSeconds: 401 * 86_400 },
      { maxAgeSeconds: 1.5 },
    ]) {
      expect(() => sessionCookie(options)).toThrow(ConfigurationError)
    }
  })

  it('serializes only opaque base64url values, without echoing a bad one', () => {
    const cookie = sessionCookie()
    for (const value of [
      '',
      'short',
      'a'.repeat(21),
      `${VALUE};Domain=evil.example`,
      `"${VALUE}"`,
      `${VALUE}\r\nX: y`,
    ]) {
      let error: unknown
      try {
        serializeSessionCookie(cookie, value)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(LocalAccountError)
      expect((error as Error).message).not.toContain(VALUE)
    }
  })
})

describe('hand-built cookie settings', () => {
  it('cannot smuggle attributes into Set-Cookie', () => {
    const base = sessionCookie()
    for (const forged of [
      { ...base, name: '__Host-x; Domain=evil.example' },
      { ...base, sameSite: 'None; Domain=evil.example' },
      { ...base, maxAgeSeconds: '1; Domain=evil.example' },
    ]) {
      expect(() => serializeSessionCookie(forged as never, VALUE)).toThrow(LocalAccountError)
      expect(() => clearSessionCookie(forged as never)).toThrow(LocalAccountError)
    }
  })
})

describe('readSessionCookie', () => {
  const cookie = sessionCookie()
  const name = cookie.name

  it('finds our cookie among others and tolerates their oddities', () => {
    expect(readSessionCookie(cookie, `${name}=${VALUE}`)).toEqual({ kind: 'present', value: VALUE })
    expect(readSessionCookie(cookie, `theme=dark; ${name}=${VALUE}; lang="en"; junk; =x; a==b`)).toEqual({
      kind: 'present',
      value: VALUE,
    })
    expect(readSessionCookie(cookie, ['theme=dark', `${name}=${VALUE}`])).toEqual({
      kind: 'present',
      value: VALUE,
    })
    expect(readSessionCookie(cookie, `${name} = ${VALUE}`)).toEqual({ kind: 'present', value: VALUE })
  })

  it('reports absence when our cookie is not there (names are case-sensitive)', () => {
    expect(readSessionCookie(cookie, undefined)).toEqual({ kind: 'absent' })
    expect(readSessionCookie(cookie, '')).toEqual({ kind: 'absent' })
    expect(readSessionCookie(cookie, `theme=dark; ${name.toLowerCase()}=${VALUE}`)).toEqual({
      kind: 'absent',
    })
    expect(readSessionCookie(cookie, `x${name}=${VALUE}`)).toEqual({ kind: 'absent' })
  })

  it('refuses a malformed value of ours instead of treating it as absent', () => {
    for (const value of [
      '',
      'short',
      `"${VALUE}"`,
      `${VALUE}!`,
      `${VALUE} x`,
      'a'.repeat(600),
      `${VALUE}=`,
    ]) {
      expect(readSessionCookie(cookie, `theme=dark; ${name}=${value}`)).toEqual({ kind: 'malformed' })
    }
    expect(readSessionCookie(cookie, `${name}`)).toEqual({ kind: 'malformed' })
  })

  it('refuses a duplicated session cookie (a planted second value)', () => {
    const planted = newOpaqueToken()
    expect(readSessionCookie(cookie, `${name}=${planted}; ${name}=${VALUE}`)).toEqual({ kind: 'malformed' })
    expect(readSessionCookie(cookie, [`${name}=${VALUE}`, `${name}=${VALUE}`])).toEqual({ kind: 'malformed' })
  })
})
