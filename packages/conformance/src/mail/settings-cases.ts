import type { SecurityChangeType } from '@portcullis/core/mail'
import { rejectionCode } from '../oauth/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import type { NotificationSettingsFixture } from './fixture.js'

type Case = ConformanceCase<NotificationSettingsFixture>

const NOW = new Date('2031-03-04T05:06:07.000Z')
const same = (a: readonly string[], b: readonly string[]) => JSON.stringify(a) === JSON.stringify(b)

export const settingsCases: readonly Case[] = [
  conformanceCase(
    'mail.settings.replace',
    'every kind is on until turned off; setOptOuts replaces the whole set (deduplicated, in the stable order of SECURITY_CHANGE_TYPES) and an empty set turns all back on',
    async (fixture, check) => {
      const { store } = fixture
      const accountId = await fixture.createAccount()
      check(same(await store.getOptOuts(accountId), []), 'a new account has opt-outs')
      const chosen: SecurityChangeType[] = [
        'mcp-client-connected',
        'password-changed',
        'mcp-client-connected',
      ]
      check(
        (await store.setOptOuts({ accountId, optOuts: chosen, now: NOW })) === true,
        'setOptOuts refused a known account',
      )
      const stored = await store.getOptOuts(accountId)
      check(same(stored, ['password-changed', 'mcp-client-connected']), `stored ${JSON.stringify(stored)}`)
      await store.setOptOuts({ accountId, optOuts: ['factor-added'], now: NOW })
      check(
        same(await store.getOptOuts(accountId), ['factor-added']),
        'a second set did not replace the first',
      )
      const other = await fixture.createAccount()
      check(same(await store.getOptOuts(other), []), "one account's opt-outs showed on another")
      await store.setOptOuts({ accountId, optOuts: [], now: NOW })
      check(same(await store.getOptOuts(accountId), []), 'an empty set left opt-outs in place')
    },
  ),
  conformanceCase(
    'mail.settings.accounts',
    'an unknown account is refused (false, nothing stored), and deleting an account deletes its settings',
    async (fixture, check) => {
      const { store } = fixture
      const missing = `missing-${Math.random().toString(36).slice(2)}`
      check(
        (await store.setOptOuts({ accountId: missing, optOuts: ['password-reset'], now: NOW })) === false,
        'setOptOuts accepted an unknown account',
      )
      check(same(await store.getOptOuts(missing), []), 'an unknown account has opt-outs')
      const accountId = await fixture.createAccount()
      await store.setOptOuts({ accountId, optOuts: ['address-added'], now: NOW })
      await fixture.deleteAccount(accountId)
      check(same(await store.getOptOuts(accountId), []), 'a deleted account kept its opt-outs')
    },
  ),
  conformanceCase(
    'mail.settings.bad-input',
    'an unknown change type, a malformed account id or a bad date is mail.invalid_notification_settings and nothing is stored',
    async (fixture, check) => {
      const { store } = fixture
      const accountId = await fixture.createAccount()
      for (const [what, request] of [
        ['an unknown type', { accountId, optOuts: ['newsletter'], now: NOW }],
        ['optOuts not an array', { accountId, optOuts: 'password-reset', now: NOW }],
        ['an invalid date', { accountId, optOuts: [], now: new Date(Number.NaN) }],
        ['a blank account id', { accountId: '', optOuts: [], now: NOW }],
      ] as const) {
        const code = await rejectionCode(store.setOptOuts(request as never))
        check(code === 'mail.invalid_notification_settings', `${what}: got ${code ?? 'success'}`)
      }
      const code = await rejectionCode(store.getOptOuts('a\u0000b'))
      check(code === 'mail.invalid_notification_settings', `getOptOuts with a NUL: got ${code ?? 'success'}`)
      check(same(await store.getOptOuts(accountId), []), 'a refused request stored opt-outs')
    },
  ),
]
