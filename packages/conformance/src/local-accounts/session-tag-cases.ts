import { randomBytes } from 'node:crypto'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { expectCode, handle, loose, type SessionStoreFixture, T0, unique } from './fixture.js'
import { session } from './session-cases.js'

type Case = ConformanceCase<SessionStoreFixture>

/** A tag as `providerSessionTags` makes them: 11 base64url characters. */
const tag = () => randomBytes(9).toString('base64url').slice(0, 11)

export const sessionTagCases: readonly Case[] = [
  conformanceCase(
    'session.revoke-by-handle-tags',
    'revoke by handleTags ends exactly the sessions, of any account, whose handle carries every tag in its tag slots',
    async ({ store }, check) => {
      const [subject, sid, otherSid] = [tag(), tag(), tag()]
      const both = session({ handle: `${subject}${sid}${handle()}` })
      const sameSubject = session({
        handle: `${subject}${otherSid}${handle()}`,
        accountId: unique('account'),
      })
      const untagged = session()
      // The subject's tag past the two tag slots (the random part of a handle) names nothing.
      const elsewhere = session({ handle: `${handle()}${subject}`, accountId: unique('account') })
      for (const each of [both, sameSubject, untagged, elsewhere]) await store.create({ session: each })
      check(
        (await store.revoke({ handleTags: [subject, sid] })) === 1,
        'not exactly the session with both tags',
      )
      check((await store.get(both.digest, T0)) === null, 'the session with both tags survived')
      check((await store.get(sameSubject.digest, T0)) !== null, 'a session with one of the tags ended')
      check((await store.revoke({ handleTags: [subject] })) === 1, 'the subject tag did not end the rest')
      check((await store.get(sameSubject.digest, T0)) === null, 'the session of the subject survived')
      check((await store.get(untagged.digest, T0)) !== null, 'an untagged session ended')
      check((await store.get(elsewhere.digest, T0)) !== null, 'a tag past the tag slots ended a session')
      check((await store.revoke({ handleTags: [tag()] })) === 0, 'an unknown tag ended something')
    },
  ),
  conformanceCase(
    'session.revoke-by-handle-tags-input',
    'revoke by handleTags refuses anything but 1 or 2 tags of 11 base64url characters, alone',
    async ({ store }, check) => {
      const bad: unknown[] = [
        { handleTags: [] },
        { handleTags: [tag(), tag(), tag()] },
        { handleTags: ['short'] },
        { handleTags: ['%_%_%_%_%_%'] },
        { handleTags: [`${tag()}x`] },
        { handleTags: tag() },
        { handleTags: [tag()], accountId: unique('account') },
      ]
      for (const request of bad) {
        await expectCode(check, store.revoke(loose(request)), 'local.invalid_input', JSON.stringify(request))
      }
    },
  ),
]
