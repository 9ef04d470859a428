import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { assertCsrf, type CsrfCheckInput, CsrfRefusedError, checkCsrf, csrfTokenForSession } from './csrf.js'

const TARGET = 'https://app.example'
const SESSION_ID = 'q3mJ9S0e1x6VdN2lR8kz_T4yWbA7cHfPuGoLnEiKjM0'
const TOKEN = csrfTokenForSession(SESSION_ID)

const check = (input: Partial<CsrfCheckInput>) =>
  checkCsrf({ method: 'POST', targetOrigin: TARGET, trustedOrigins: ['https://admin.example/'], ...input })

describe('checkCsrf', () => {
  it('lets safe methods through whatever they carry', () => {
    for (const method of ['GET', 'head', 'OPTIONS', 'TRACE']) {
      expect(check({ method, secFetchSite: 'cross-site', origin: 'https://evil.example' })).toEqual({
        ok: true,
      })
    }
  })

  it('accepts same-origin Fetch Metadata, with a consistent Origin if one is sent', () => {
    expect(check({ secFetchSite: 'same-origin' })).toEqual({ ok: true })
    expect(check({ secFetchSite: 'Same-Origin', origin: TARGET })).toEqual({ ok: true })
    expect(check({ secFetchSite: 'same-origin', origin: 'https://evil.example' })).toEqual({
      ok: false,
      reason: 'csrf.origin_mismatch',
    })
    // Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` for its own same-origin form posts.
    expect(check({ secFetchSite: 'same-origin', origin: 'null' })).toEqual({ ok: true })
    expect(check({ origin: 'null' })).toMatchObject({ reason: 'csrf.foreign_origin' })
    expect(check({ secFetchSite: 'cross-site', origin: 'null' })).toMatchObject({ reason: 'csrf.cross_site' })
  })

  it('refuses cross-site and same-site requests unless the Origin is trusted', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) {
      expect(check({ method, secFetchSite: 'cross-site', origin: 'https://evil.example' })).toEqual({
        ok: false,
        reason: 'csrf.cross_site',
      })
    }
    // A sibling subdomain is same-site, and still not trusted.
    expect(check({ secFetchSite: 'same-site', origin: 'https://evil.app.example' })).toMatchObject({
      reason: 'csrf.cross_site',
    })
    expect(check({ secFetchSite: 'cross-site' })).toMatchObject({ reason: 'csrf.cross_site' })
    expect(check({ secFetchSite: 'cross-site', origin: 'null' })).toMatchObject({ reason: 'csrf.cross_site' })
    expect(check({ secFetchSite: 'same-site', origin: 'https://admin.example' })).toEqual({ ok: true })
    // A matching synchronizer token does not override a cross-site verdict.
    expect(check({ secFetchSite: 'cross-site', presentedToken: TOKEN, expectedToken: TOKEN }).ok).toBe(false)
  })

  it('without Fetch Metadata, accepts the target or a trusted Origin and refuses any other', () => {
    expect(check({ origin: TARGET })).toEqual({ ok: true })
    expect(check({ origin: 'HTTPS://APP.EXAMPLE' })).toEqual({ ok: true })
    expect(check({ origin: 'https://admin.example' })).toEqual({ ok: true })
    for (const origin of [
      'https://evil.example',
      'http://app.example',
      'https://app.example:8443',
      'https://app.example.evil.example',
      'null',
      'https://app.example/path',
      'https://user@app.example',
      'garbage',
      '',
    ]) {
      expect(check({ origin, presentedToken: TOKEN, expectedToken: TOKEN })).toEqual({
        ok: false,
        reason: 'csrf.foreign_origin',
      })
    }
    expect(check({ secFetchSite: 'none', origin: 'https://evil.example' })).toMatchObject({
      reason: 'csrf.foreign_origin',
    })
  })

  it('with neither header, requires the synchronizer token', () => {
    expect(check({ presentedToken: TOKEN, expectedToken: TOKEN })).toEqual({ ok: true })
    expect(check({})).toEqual({ ok: false, reason: 'csrf.token_missing' })
    expect(check({ presentedToken: TOKEN })).toMatchObject({ reason: 'csrf.token_missing' })
    expect(check({ presentedToken: '', expectedToken: TOKEN })).toMatchObject({
      reason: 'csrf.token_missing',
    })
    expect(check({ presentedToken: `${TOKEN}x`, expectedToken: TOKEN })).toMatchObject({
      reason: 'csrf.token_mismatch',
    })
    expect(
      check({ presentedToken: csrfTokenForSession('other-session'), expectedToken: TOKEN }),
    ).toMatchObject({
      reason: 'csrf.token_mismatch',
    })
    expect(check({ presentedToken: 'x'.repeat(100_000), expectedToken: TOKEN })).toMatchObject({
      reason: 'csrf.token_mismatch',
    })
    // Unknown Fetch Metadata values fall back to the token rule, never to "allowed".
    expect(check({ secFetchSite: 'weird' })).toMatchObject({ reason: 'csrf.token_missing' })
    expect(check({ secFetchSite: 'weird', presentedToken: TOKEN, expectedToken: TOKEN })).toEqual({
      ok: true,
    })
  })

  it('refuses a target origin that is not an http(s) origin', () => {
    expect(() => check({ targetOrigin: 'not a url' })).toThrow(ConfigurationError)
  })

  it('assertCsrf throws a forbidden CsrfRefusedError with the reason and no header values', () => {
    expect(() => assertCsrf({ method: 'GET', targetOrigin: TARGET })).not.toThrow()
    let error: unknown
    try {
      assertCsrf({
        method: 'POST',
        targetOrigin: TARGET,
        origin: 'https://evil.example',
        presentedToken: TOKEN,
      })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(CsrfRefusedError)
    expect(error).toMatchObject({
      code: 'local.csrf_refused',
      errorClass: 'forbidden',
      reason: 'csrf.foreign_origin',
    })
    expect(JSON.stringify(error)).not.toContain('evil')
    expect(JSON.stringify(error)).not.toContain(TOKEN)
  })
})

describe('csrfTokenForSession', () => {
  it('is base64url(HMAC-SHA256(key = session id, "portcullis-csrf-v1")), stable per session', () => {
    const expected = createHmac('sha256', SESSION_ID).update('portcullis-csrf-v1').digest('base64url')
    expect(TOKEN).toBe(expected)
    expect(TOKEN).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(csrfTokenForSession(SESSION_ID)).toBe(TOKEN)
    expect(csrfTokenForSession(`${SESSION_ID}x`)).not.toBe(TOKEN)
    expect(TOKEN).not.toContain(SESSION_ID.slice(0, 8))
  })

  it('refuses an empty session id', () => {
    expect(() => csrfTokenForSession('')).toThrow(/non-empty/)
  })
})
