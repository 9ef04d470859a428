import { createHash, randomBytes } from 'node:crypto'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  eventually,
  identifierOf,
  mine,
  type RevocationNoticesFixture,
  recorder,
  sameNotice,
  unique,
} from './fixture.js'

type Case = ConformanceCase<RevocationNoticesFixture>

const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex')

function everyKind(): RevocationNotice[] {
  return [
    { kind: 'session', digest: digest() },
    { kind: 'account', accountId: unique('account') },
    { kind: 'refresh-family', familyId: unique('family') },
    { kind: 'api-key', keyId: unique('key') },
    { kind: 'membership', accountId: unique('member') },
  ]
}

const ids = (notices: readonly RevocationNotice[]) => new Set(notices.map(identifierOf))

export const noticeCases: readonly Case[] = [
  conformanceCase(
    'revocation.trusted-when-ready',
    'both instances trust their notices once the factory returns them',
    ({ notices, peer }, check) => {
      check(notices.trusted(), 'the first instance is not trusted')
      check(peer.trusted(), 'the peer is not trusted')
    },
  ),
  conformanceCase(
    'revocation.delivers-every-kind',
    'a notice of each kind reaches the publishing instance and its peer, exactly as published',
    async ({ notices, peer }, check) => {
      const here = recorder(notices)
      const there = recorder(peer)
      notices.subscribe(here)
      peer.subscribe(there)
      const sent = everyKind()
      for (const notice of sent) await notices.publish(notice)
      const expected = ids(sent)
      const arrived = await eventually(
        () => mine(here, expected).length >= sent.length && mine(there, expected).length >= sent.length,
      )
      check(arrived, 'not every notice arrived within 5 s')
      for (const record of [here, there]) {
        for (const notice of sent) {
          check(
            mine(record, expected).some((got) => sameNotice(got, notice)),
            `${notice.kind} notice arrived changed or not at all`,
          )
        }
      }
    },
  ),
  conformanceCase(
    'revocation.order',
    'notices published one after another by one instance reach the peer in that order',
    async ({ notices, peer }, check) => {
      const there = recorder(peer)
      peer.subscribe(there)
      const sent: RevocationNotice[] = Array.from({ length: 20 }, () => ({
        kind: 'session',
        digest: digest(),
      }))
      for (const notice of sent) await notices.publish(notice)
      const expected = ids(sent)
      check(await eventually(() => mine(there, expected).length >= sent.length), 'notices were lost')
      const order = mine(there, expected).map(identifierOf)
      check(
        order.every((id, index) => id === identifierOf(sent[index] as RevocationNotice)),
        'the peer saw another order',
      )
    },
  ),
  conformanceCase(
    'revocation.identifiers-exact',
    'identifiers with colons, quotes, non-ASCII characters and the maximum length arrive unchanged',
    async ({ notices, peer }, check) => {
      const there = recorder(peer)
      peer.subscribe(there)
      const tag = unique('odd')
      const sent: RevocationNotice[] = [
        { kind: 'account', accountId: `${tag}:a:b` },
        { kind: 'account', accountId: `${tag} 'quoted' "double" $1 \\ %` },
        { kind: 'account', accountId: `${tag}-Ünïcødé-账户-🔑` },
        { kind: 'api-key', keyId: `${tag}${'k'.repeat(255 - tag.length)}` },
      ]
      for (const notice of sent) await notices.publish(notice)
      const expected = ids(sent)
      check(await eventually(() => mine(there, expected).length >= sent.length), 'notices were lost')
      for (const notice of sent) {
        check(
          mine(there, expected).some((got) => sameNotice(got, notice)),
          `${JSON.stringify(identifierOf(notice)).slice(0, 40)} arrived changed`,
        )
      }
    },
  ),
  conformanceCase(
    'revocation.refuses-malformed',
    'publishing something that is not a notice rejects and delivers nothing',
    async ({ notices, peer }, check) => {
      const there = recorder(peer)
      peer.subscribe(there)
      const tag = unique('bad')
      const bad: unknown[] = [
        { kind: 'session', digest: '' },
        { kind: 'account', accountId: `${tag}\nline` },
        { kind: 'api-key', keyId: `${tag}${'x'.repeat(256)}` },
        { kind: 'everything', accountId: tag },
        { kind: 'account' },
        null,
      ]
      for (const notice of bad) {
        const outcome = await notices.publish(notice as RevocationNotice).then(
          () => 'sent',
          () => 'rejected',
        )
        check(outcome === 'rejected', `${JSON.stringify(notice)?.slice(0, 40)} was sent`)
      }
      const marker: RevocationNotice = { kind: 'account', accountId: `${tag}-marker` }
      await notices.publish(marker)
      check(await eventually(() => there.notices.some((got) => sameNotice(got, marker))), 'marker was lost')
      check(
        !there.notices.some((got) => identifierOf(got).startsWith(tag) && !sameNotice(got, marker)),
        'a malformed notice was delivered',
      )
    },
  ),
  conformanceCase(
    'revocation.unsubscribe',
    'an unsubscribed subscriber hears nothing more while the others still do',
    async ({ notices, peer }, check) => {
      const gone = recorder(peer)
      const stays = recorder(peer)
      const unsubscribe = peer.subscribe(gone)
      peer.subscribe(stays)
      unsubscribe()
      const notice: RevocationNotice = { kind: 'account', accountId: unique('account') }
      await notices.publish(notice)
      check(await eventually(() => stays.notices.some((got) => sameNotice(got, notice))), 'notice was lost')
      check(!gone.notices.some((got) => sameNotice(got, notice)), 'the unsubscribed subscriber heard it')
    },
  ),
  conformanceCase(
    'revocation.failing-subscriber',
    'a subscriber that throws does not keep a notice from the other subscribers',
    async ({ notices, peer }, check) => {
      peer.subscribe(recorder(peer, { throws: true }))
      const stays = recorder(peer)
      peer.subscribe(stays)
      const first: RevocationNotice = { kind: 'session', digest: digest() }
      const second: RevocationNotice = { kind: 'session', digest: digest() }
      await notices.publish(first)
      await notices.publish(second)
      check(
        await eventually(() => [first, second].every((n) => stays.notices.some((got) => sameNotice(got, n)))),
        'a notice was lost after a subscriber threw',
      )
    },
  ),
]

/** Cases for implementations whose listener can drop (a connection to a server). */
export const dropCases: readonly Case[] = [
  conformanceCase(
    'revocation.drop-untrusts',
    'when the listener connection ends, the instance stops trusting its notices at once (within 250 ms)',
    async ({ peer, interruptPeer }, check) => {
      check(interruptPeer !== undefined, 'the fixture cannot drop the listener (interruptPeer)')
      await interruptPeer?.()
      check(await eventually(() => !peer.trusted(), 250), 'still trusted 250 ms after the drop')
    },
  ),
  conformanceCase(
    'revocation.reconnect-flushes',
    'after a drop the instance reconnects, flushes its subscribers before trusting again, and hears new notices',
    async ({ notices, peer, interruptPeer }, check) => {
      check(interruptPeer !== undefined, 'the fixture cannot drop the listener (interruptPeer)')
      const there = recorder(peer)
      peer.subscribe(there)
      await interruptPeer?.()
      check(await eventually(() => !peer.trusted(), 1_000), 'still trusted 1 s after the drop')
      // Sent while the peer is away: it may be lost, which is why the peer must flush.
      await notices.publish({ kind: 'account', accountId: unique('away') })
      check(await eventually(() => peer.trusted(), 15_000), 'not trusted again within 15 s')
      check(there.flushes.length >= 1, 'trusted again without a flush')
      check(
        there.flushes.every((trusted) => !trusted),
        'flushed only after trusting again',
      )
      const after: RevocationNotice = { kind: 'account', accountId: unique('after') }
      await notices.publish(after)
      check(
        await eventually(() => there.notices.some((got) => sameNotice(got, after))),
        'deaf after reconnect',
      )
    },
  ),
]
