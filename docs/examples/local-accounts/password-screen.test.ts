// Screening new passwords (NIST SP 800-63B-4 §3.1.1.2), as the docs show it: the offline screen over the
// common-password list that `LocalAccounts` requires (or a list of your own), and the k-anonymity range
// screen in front of it, here pointed at a
// loopback server that speaks the range format (in production, leave `endpoint` out: the public service).
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  blocklistPasswordScreen,
  type LocalAccountsOptions,
  rangePasswordScreen,
} from '@portcullis/core/local-accounts'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { afterAll, beforeAll, expect, it } from 'vitest'

const LEAKED = 'summer rain on the old tin roof'
const leakedHash = createHash('sha1').update(LEAKED).digest('hex').toUpperCase()
const requested: string[] = []
const server = createServer((request, response) => {
  requested.push(request.url ?? '')
  const prefix = (request.url ?? '').slice('/range/'.length)
  const lines = leakedHash.startsWith(prefix) ? [`${leakedHash.slice(5)}:42`] : []
  response
    .writeHead(200, { 'content-type': 'text/plain' })
    .end([...lines, `${'0'.repeat(35)}:0`].join('\r\n'))
})
let loopback: { endpoint: string; allowLoopback: boolean } = { endpoint: '', allowLoopback: true }

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  loopback = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`,
    allowLoopback: true,
  }
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

it('refuses common passwords and the account name offline', async () => {
  // #region blocklist-screen
  const screen = commonPasswordScreen({ words: ['Example Corp', 'example.com'] })
  const context = { purpose: 'sign-up' as const, username: 'marguerite' }
  // On the common-password list, in any case or width (compared after NFKC, lower-cased).
  expect(await screen.screen('Sunshine1', context)).toEqual({ accepted: false, reason: 'common' })
  expect(await screen.screen('ＰＡＳＳＷＯＲＤ', context)).toEqual({ accepted: false, reason: 'common' })
  // The username, the service's own words, or a listed password around them.
  expect(await screen.screen('Marguerite2024!', context)).toEqual({ accepted: false, reason: 'context' })
  expect(await screen.screen('example.com-admin', context)).toEqual({ accepted: false, reason: 'context' })
  expect(await screen.screen('qwerty123-marguerite', context)).toEqual({ accepted: false, reason: 'context' })
  // A passphrase that merely mentions the name stands.
  expect(await screen.screen('marguerite rides a red bicycle', context)).toEqual({ accepted: true })
  // #endregion blocklist-screen
})

it('screens with a list of your own: the same rules over your passwords', async () => {
  // #region own-list
  const own = blocklistPasswordScreen({ passwords: ['examplecorp2026', 'welcome-to-example'] })
  expect(await own.screen('ExampleCorp2026', { purpose: 'reset' })).toEqual({
    accepted: false,
    reason: 'common',
  })
  // #endregion own-list
  expect(await own.screen('a phrase of its own here', { purpose: 'reset' })).toEqual({ accepted: true })
  expect(() => blocklistPasswordScreen({} as never)).toThrow(/needs passwords/)
})

it('asks the range service with the first five hex digits of the SHA-1 only', async () => {
  const outages: string[] = []
  const metrics = { rangeUnavailable: (reason: string) => outages.push(reason) }
  // #region range-screen
  const options: Pick<LocalAccountsOptions, 'passwordScreen'> = {
    passwordScreen: rangePasswordScreen({
      ...loopback, // tests only: a range server on 127.0.0.1
      minimumCount: 1, // refuse a password seen in any breach
      timeoutMs: 2000,
      whenUnavailable: 'fallback', // or 'refuse': 503 local.password_screen_unavailable
      fallback: commonPasswordScreen({ words: ['Example Corp'] }), // before the lookup, and in an outage
      onUnavailable: (reason) => metrics.rangeUnavailable(reason),
    }),
  }
  // #endregion range-screen
  const screen = options.passwordScreen
  if (screen === undefined) throw new Error('no screen')
  expect(await screen.screen(LEAKED, { purpose: 'change' })).toEqual({ accepted: false, reason: 'breached' })
  expect(requested).toEqual([`/range/${leakedHash.slice(0, 5)}`])
  expect(await screen.screen('a phrase no breach has seen yet', { purpose: 'change' })).toEqual({
    accepted: true,
  })
  expect(outages).toEqual([])
})
