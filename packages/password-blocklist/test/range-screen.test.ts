// The k-anonymity range client against a real loopback HTTP server that speaks the "Pwned Passwords"
// range format (`GET /range/{PREFIX}` answering `SUFFIX:COUNT` lines): what goes on the wire (five
// upper-case hex digits and nothing that identifies the password), padding, the count threshold, and an
// unavailable, slow or garbled service (falling back to the common-password list, or refusing with a 503
// code). Core's range client with this package's list as its offline fallback, as an application wires them.
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isPortcullisError } from '@portcullis/core/errors'
import {
  rangePasswordScreen as coreRangePasswordScreen,
  type RangePasswordScreenOptions,
  screenNewPassword,
} from '@portcullis/core/local-accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commonPasswordScreen } from '../src/index.js'

const BREACHED = 'a phrase leaked in 2019 breach'
const RARE = 'a phrase leaked only twice'
const CLEAN = 'nobody has ever typed this one'

/** The range screen with the maintained list as its offline fallback. */
function rangePasswordScreen(options: Omit<RangePasswordScreenOptions, 'fallback'>) {
  return coreRangePasswordScreen({ ...options, fallback: commonPasswordScreen() })
}

const sha1 = (value: string) => createHash('sha1').update(value, 'utf8').digest('hex').toUpperCase()

interface Seen {
  readonly url: string
  readonly method: string
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

type Mode = 'normal' | 'down' | 'slow' | 'garbled' | 'mixed' | 'redirect'

/** The corpus: full hashes and counts, answered by prefix; padded with count-0 lines when asked. */
function rangeServer(corpus: ReadonlyMap<string, number>) {
  const seen: Seen[] = []
  let mode: Mode = 'normal'
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      seen.push({ url: request.url ?? '', method: request.method ?? '', headers: request.headers, body })
      if (mode === 'down') {
        response.writeHead(503).end('busy')
        return
      }
      if (mode === 'redirect') {
        response.writeHead(302, { location: `${request.url}/elsewhere` }).end()
        return
      }
      if (mode === 'slow') {
        setTimeout(() => response.writeHead(200).end(''), 3000).unref()
        return
      }
      const match = /^\/range\/([0-9A-F]{5})$/.exec(request.url ?? '')
      if (match === null) {
        response.writeHead(400).end('bad prefix')
        return
      }
      const prefix = match[1] as string
      const lines: string[] = []
      for (const [hash, count] of corpus) if (hash.startsWith(prefix)) lines.push(`${hash.slice(5)}:${count}`)
      if (request.headers['add-padding'] === 'true') {
        // Fake suffixes with count 0, as the public service pads; one of them is the clean password's.
        lines.push(`${sha1(CLEAN).slice(5)}:0`)
        for (let index = 0; index < 400; index++) lines.push(`${sha1(`pad${index}`).slice(5)}:0`)
      }
      if (mode === 'garbled') {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>\n<p>soon</p>')
        return
      }
      if (mode === 'mixed') lines.unshift('not a line', 'ZZZZ:1', `${sha1(CLEAN).slice(5)}:lots`)
      response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'))
    })
  })
  return {
    server,
    seen,
    setMode(next: Mode) {
      mode = next
    },
  }
}

const corpus = new Map([
  [sha1(BREACHED), 51_234],
  [sha1(RARE), 2],
  // Same prefix neighbours are what a real range holds; these only share the prefix by chance if ever.
  [sha1('correct horse battery staple'), 300],
])
const world = rangeServer(corpus)
let endpoint = ''

beforeAll(async () => {
  await new Promise<void>((resolve) => world.server.listen(0, '127.0.0.1', resolve))
  endpoint = `http://127.0.0.1:${(world.server.address() as AddressInfo).port}/range/`
})
afterAll(async () => {
  world.server.closeAllConnections()
  await new Promise<void>((resolve) => world.server.close(() => resolve()))
})

const context = { purpose: 'sign-up' as const, username: 'erin' }

describe('rangePasswordScreen over a loopback range server', () => {
  it('sends only the five upper-case hex digits of the SHA-1: no password, no suffix, no body', async () => {
    world.setMode('normal')
    const screen = rangePasswordScreen({ endpoint, allowLoopback: true })
    const before = world.seen.length
    expect(await screen.screen(BREACHED, context)).toEqual({ accepted: false, reason: 'breached' })
    const request = world.seen.slice(before)
    expect(request).toHaveLength(1)
    const [one] = request as [Seen]
    const hash = sha1(BREACHED)
    expect(one.method).toBe('GET')
    expect(one.url).toBe(`/range/${hash.slice(0, 5)}`)
    expect(one.url).toMatch(/^\/range\/[0-9A-F]{5}$/)
    expect(one.body).toBe('')
    const wire = JSON.stringify(one).toLowerCase()
    expect(wire).not.toContain(hash.slice(5).toLowerCase())
    expect(wire).not.toContain(hash.slice(5, 15).toLowerCase())
    expect(wire).not.toContain('leaked')
    expect(wire).not.toContain('erin')
    expect(one.headers['add-padding']).toBe('true')
    expect(one.headers.cookie).toBeUndefined()
    expect(one.headers.authorization).toBeUndefined()
  })

  it('ignores padding lines (count 0): a padded suffix is not a breach', async () => {
    world.setMode('normal')
    const screen = rangePasswordScreen({ endpoint, allowLoopback: true })
    expect(await screen.screen(CLEAN, context)).toEqual({ accepted: true })
    const unpadded = rangePasswordScreen({ endpoint, allowLoopback: true, padding: false })
    const before = world.seen.length
    expect(await unpadded.screen(CLEAN, context)).toEqual({ accepted: true })
    expect(world.seen[before]?.headers['add-padding']).toBeUndefined()
  })

  it('refuses at the count threshold and not below it', async () => {
    world.setMode('normal')
    const strict = rangePasswordScreen({ endpoint, allowLoopback: true })
    const lenient = rangePasswordScreen({ endpoint, allowLoopback: true, minimumCount: 3 })
    expect(await strict.screen(RARE, context)).toEqual({ accepted: false, reason: 'breached' })
    expect(await lenient.screen(RARE, context)).toEqual({ accepted: true })
    expect(await lenient.screen(BREACHED, context)).toEqual({ accepted: false, reason: 'breached' })
  })

  it('asks nothing about a password the offline list or the username rule already refuses', async () => {
    world.setMode('normal')
    const screen = rangePasswordScreen({ endpoint, allowLoopback: true })
    const before = world.seen.length
    expect(await screen.screen('Password123', context)).toEqual({ accepted: false, reason: 'common' })
    expect(await screen.screen('erin2025!', context)).toEqual({ accepted: false, reason: 'context' })
    expect(world.seen.length).toBe(before)
  })

  it('skips malformed lines and still finds the suffix; an answer of only garbage is no answer', async () => {
    world.setMode('mixed')
    const outages: string[] = []
    const screen = rangePasswordScreen({
      endpoint,
      allowLoopback: true,
      whenUnavailable: 'refuse',
      onUnavailable: (reason) => outages.push(reason),
    })
    expect(await screen.screen(BREACHED, context)).toEqual({ accepted: false, reason: 'breached' })
    // `SUFFIX:lots` is malformed, not a count: the clean password stays clean.
    expect(await screen.screen(CLEAN, context)).toEqual({ accepted: true })
    world.setMode('garbled')
    await expect(screen.screen(CLEAN, context)).rejects.toMatchObject({
      code: 'local.password_screen_unavailable',
      retryAfterSeconds: 5,
    })
    expect(outages).toEqual(['malformed'])
  })

  it('an unavailable service falls back to the offline list by default, or refuses with a 503 code', async () => {
    world.setMode('down')
    const outages: string[] = []
    const open = rangePasswordScreen({ endpoint, allowLoopback: true, onUnavailable: (r) => outages.push(r) })
    // Fail open to the blocklist: the breach corpus cannot be asked, the common list still applies.
    expect(await open.screen(BREACHED, context)).toEqual({ accepted: true })
    expect(await open.screen('iloveyou', context)).toEqual({ accepted: false, reason: 'common' })
    const closed = rangePasswordScreen({
      endpoint,
      allowLoopback: true,
      whenUnavailable: 'refuse',
      retryAfterSeconds: 7,
    })
    let thrown: unknown
    try {
      await screenNewPassword(closed, BREACHED, context)
    } catch (error) {
      thrown = error
    }
    expect(isPortcullisError(thrown) && thrown.code).toBe('local.password_screen_unavailable')
    expect(isPortcullisError(thrown) && thrown.errorClass).toBe('unavailable')
    expect((thrown as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(7)
    expect(JSON.stringify(thrown) + String((thrown as Error).message)).not.toContain('leaked')
    expect(outages).toEqual(['status'])
    // A port with nothing listening is unavailable too.
    const nowhere = rangePasswordScreen({
      endpoint: 'http://127.0.0.1:1/range/',
      allowLoopback: true,
      onUnavailable: (r) => outages.push(r),
    })
    expect(await nowhere.screen(BREACHED, context)).toEqual({ accepted: true })
    expect(outages).toEqual(['status', 'network'])
  })

  it('a slow service times out within the bound and is treated as unavailable', async () => {
    world.setMode('slow')
    const outages: string[] = []
    const screen = rangePasswordScreen({
      endpoint,
      allowLoopback: true,
      timeoutMs: 200,
      onUnavailable: (r) => outages.push(r),
    })
    const started = performance.now()
    expect(await screen.screen(BREACHED, context)).toEqual({ accepted: true })
    const elapsed = performance.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(190)
    expect(elapsed).toBeLessThan(2500)
    expect(outages).toEqual(['timeout'])
  })

  it('never follows a redirect: the answer is no answer, and only one request was made', async () => {
    world.setMode('redirect')
    const outages: string[] = []
    const screen = rangePasswordScreen({
      endpoint,
      allowLoopback: true,
      onUnavailable: (r) => outages.push(r),
    })
    const before = world.seen.length
    expect(await screen.screen(BREACHED, context)).toEqual({ accepted: true })
    expect(world.seen.length - before).toBe(1)
    expect(outages).toEqual(['refused'])
  })

  it('refuses an endpoint the outbound policy does not allow: nothing is sent', async () => {
    world.setMode('normal')
    const outages: string[] = []
    // Loopback without allowLoopback: refused by policy before anything is sent.
    const before = world.seen.length
    const screen = rangePasswordScreen({ endpoint, onUnavailable: (r) => outages.push(r) })
    expect(await screen.screen(BREACHED, context)).toEqual({ accepted: true })
    expect(world.seen.length).toBe(before)
    expect(outages).toEqual(['refused'])
  })
})
