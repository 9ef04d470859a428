import type { Request, Response } from 'express'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SealedCookie } from './flash.js'

/** The request and response parts the cookie reads and writes. */
function exchange(cookie?: string) {
  const set: string[] = []
  const request = { headers: cookie === undefined ? {} : { cookie } } as unknown as Request
  const response = {
    append: (name: string, value: string) => {
      if (name === 'Set-Cookie') set.push(value)
    },
  } as unknown as Response
  return { request, response, set }
}

const APP_KEY = new Uint8Array(32).fill(1)

const sealed = (name = 'flash', key: Uint8Array = APP_KEY) =>
  new SealedCookie<{ readonly message: string }>(name, {
    path: '/',
    maxAgeSeconds: 60,
    secure: true,
    key,
  })

/** Seals `value` for `accountId` and returns the `name=value` pair a browser sends back. */
function issue(cookie: SealedCookie<{ readonly message: string }>, accountId: string, message: string) {
  const { response, set } = exchange()
  cookie.set(response, accountId, { message })
  return { pair: set[0]?.split(';')[0] ?? '', line: set[0] ?? '' }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('SealedCookie (the pages’ notices after a redirect)', () => {
  it('gives the value back to the account it was sealed for, once', () => {
    const flash = sealed()
    const { pair, line } = issue(flash, 'acct-1', 'Password changed.')
    expect(line).toMatch(/; Path=\/; Max-Age=60; HttpOnly; SameSite=Lax; Secure$/)
    // The value is sealed: the text is not readable in the cookie.
    expect(pair).not.toContain('Password')
    const { request, response, set } = exchange(`other=1; ${pair}`)
    expect(flash.take(request, response, 'acct-1')).toEqual({ message: 'Password changed.' })
    // Taken: the response clears it, so a reload shows it no more.
    expect(set).toEqual(['flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure'])
  })

  it('another account in the same browser gets nothing', () => {
    const flash = sealed()
    const { pair } = issue(flash, 'acct-1', 'demo_secret_key')
    expect(flash.read(exchange(pair).request, 'acct-2')).toBeUndefined()
  })

  it('refuses a tampered, truncated, foreign or garbage value', () => {
    const flash = sealed()
    const { pair } = issue(flash, 'acct-1', 'hello')
    const value = pair.slice('flash='.length)
    const bytes = Buffer.from(value, 'base64url')
    bytes[20] = (bytes[20] ?? 0) ^ 1
    for (const forged of [
      bytes.toString('base64url'),
      value.slice(0, 30),
      'garbage',
      '',
      Buffer.from(JSON.stringify({ a: 'acct-1', e: Date.now() + 60_000, v: { message: 'x' } })).toString(
        'base64url',
      ),
    ]) {
      expect(flash.read(exchange(`flash=${forged}`).request, 'acct-1')).toBeUndefined()
    }
    // Sealed under another key (another app's secrets) or for another cookie name: not this cookie's.
    const elsewhere = issue(sealed('flash', new Uint8Array(32).fill(7)), 'acct-1', 'hello').pair
    expect(flash.read(exchange(elsewhere).request, 'acct-1')).toBeUndefined()
    const renamed = issue(sealed('portcullis-totp-setup'), 'acct-1', 'hello').pair.replace(
      'portcullis-totp-setup=',
      'flash=',
    )
    expect(flash.read(exchange(renamed).request, 'acct-1')).toBeUndefined()
  })

  it('opens on another instance of the same app (the POST and the GET may land on different instances)', () => {
    const { pair } = issue(sealed(), 'acct-1', 'Key issued.')
    const otherInstance = sealed('flash', new Uint8Array(APP_KEY))
    expect(otherInstance.read(exchange(pair).request, 'acct-1')).toEqual({ message: 'Key issued.' })
  })

  it('refuses a key that is not 32 bytes', () => {
    expect(() => sealed('flash', new Uint8Array(16))).toThrow(/32 bytes/)
  })

  it('expires after its lifetime, whatever the browser keeps', () => {
    vi.useFakeTimers()
    vi.setSystemTime(new Date('2026-12-01T12:00:00Z'))
    const flash = sealed()
    const { pair } = issue(flash, 'acct-1', 'hello')
    vi.setSystemTime(new Date('2026-12-01T12:00:59Z'))
    expect(flash.read(exchange(pair).request, 'acct-1')).toEqual({ message: 'hello' })
    vi.setSystemTime(new Date('2026-12-01T12:01:01Z'))
    expect(flash.read(exchange(pair).request, 'acct-1')).toBeUndefined()
  })
})
