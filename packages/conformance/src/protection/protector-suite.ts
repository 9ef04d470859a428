import { randomBytes } from 'node:crypto'
import { associatedData } from '@portcullis/core/protection'
import { assertSuite, type ConformanceSuite } from '../suite/suite.js'
import { expectRejected, hex, utf8 } from './expectations.js'
import {
  AAD,
  case_,
  type OAuthTransactionProtectorFactory,
  SECRET,
  type Subject,
  sameBytes,
  seal,
} from './protector-subject.js'
import { tamperCases } from './protector-tamper-cases.js'

export type {
  OAuthTransactionProtectorFactory,
  OAuthTransactionProtectorSubject,
} from './protector-subject.js'

const cases = [
  case_(
    'protector.round-trip',
    'unprotect(protect(secret, aad), aad) returns the secret',
    async (s, check) => {
      for (const size of [1, 24, 43, 1024, 8192]) {
        const secret = randomBytes(size)
        const opened = await s.protector.unprotect(await s.protector.protect(secret, AAD), AAD)
        check(
          opened instanceof Uint8Array && sameBytes(opened, secret),
          `a ${size}-byte secret did not round-trip`,
        )
      }
    },
  ),

  case_(
    'protector.active-version',
    'every envelope carries the non-blank activeKeyVersion',
    async (s, check) => {
      const version = s.protector.activeKeyVersion
      check(typeof version === 'string' && version.trim() !== '', 'activeKeyVersion is blank')
      for (let i = 0; i < 8; i++) {
        const envelope = await seal(s)
        check(envelope.keyVersion === version, `envelope labelled ${JSON.stringify(envelope.keyVersion)}`)
        check(
          envelope.ciphertext instanceof Uint8Array && envelope.ciphertext.byteLength > 0,
          'empty ciphertext',
        )
      }
    },
  ),

  case_(
    'protector.aad-binding',
    'an envelope opens only with the exact associated data it was sealed with',
    async (s, check) => {
      const envelope = await seal(s)
      const others = [
        associatedData('conformance.protector', 'transaction=b', 'purpose=pkce'),
        associatedData('conformance.protector', 'transaction=a', 'purpose=nonce'),
        AAD.subarray(0, AAD.byteLength - 1),
        new Uint8Array([...AAD, 0]),
        new Uint8Array(AAD.byteLength),
      ]
      for (const [index, aad] of others.entries()) {
        await expectRejected(
          check,
          () => s.protector.unprotect(envelope, aad),
          `other associated data #${index}`,
          [SECRET],
        )
      }
    },
  ),

  case_(
    'protector.non-deterministic',
    'sealing the same secret twice never gives the same ciphertext',
    async (s, check) => {
      const seen = new Set<string>()
      for (let i = 0; i < 64; i++) seen.add(hex((await seal(s)).ciphertext))
      check(seen.size === 64, `${64 - seen.size} of 64 envelopes repeated an earlier ciphertext`)
    },
  ),

  case_('protector.confidential', 'the ciphertext does not contain the secret', async (s, check) => {
    const envelope = await seal(s)
    check(!hex(envelope.ciphertext).includes(hex(utf8(SECRET))), 'the secret bytes appear in the ciphertext')
  }),

  ...tamperCases,
  case_(
    'protector.unknown-version',
    'an envelope under an unknown or blank key version is rejected',
    async (s, check) => {
      const envelope = await seal(s)
      for (const keyVersion of ['conformance-unknown-version', '', ' ', `${envelope.keyVersion}x`]) {
        await expectRejected(
          check,
          () => s.protector.unprotect({ keyVersion, ciphertext: envelope.ciphertext }, AAD),
          `key version ${JSON.stringify(keyVersion)}`,
        )
      }
    },
  ),

  case_(
    'protector.retained-key',
    'envelopes sealed before the rotation still open with the retained key',
    async (s, check) => {
      check(
        s.previous.activeKeyVersion !== s.protector.activeKeyVersion,
        'previous and protector share an active version',
      )
      const old = await s.previous.protect(utf8(SECRET), AAD)
      let opened: Uint8Array | undefined
      try {
        opened = await s.protector.unprotect(old, AAD)
      } catch {
        check(false, 'an envelope under the retained key was rejected')
      }
      check(
        opened !== undefined && sameBytes(opened, utf8(SECRET)),
        'the retained-key envelope opened to other bytes',
      )
    },
  ),

  case_(
    'protector.seals-under-active',
    'new envelopes are sealed under the active key, never a retained one',
    async (s, check) => {
      for (let i = 0; i < 8; i++) {
        const envelope = await seal(s)
        check(
          envelope.keyVersion === s.protector.activeKeyVersion,
          'an envelope was labelled with a retained version',
        )
        await expectRejected(
          check,
          () => s.previous.unprotect(envelope, AAD),
          'the pre-rotation instance opening a new envelope',
        )
      }
    },
  ),

  case_(
    'protector.wrong-key',
    'an envelope sealed under other key material with the same label is rejected',
    async (s, check) => {
      check(
        s.impostor.activeKeyVersion === s.protector.activeKeyVersion,
        'impostor must use the same version label',
      )
      const mine = await seal(s)
      const theirs = await s.impostor.protect(utf8(SECRET), AAD)
      await expectRejected(
        check,
        () => s.protector.unprotect(theirs, AAD),
        'an envelope from other key material',
      )
      await expectRejected(
        check,
        () => s.impostor.unprotect(mine, AAD),
        'this envelope opened by other key material',
      )
    },
  ),

  case_(
    'protector.version-relabel',
    'relabelling an envelope with another known key version is rejected',
    async (s, check) => {
      const current = await seal(s)
      const old = await s.previous.protect(utf8(SECRET), AAD)
      await expectRejected(
        check,
        () =>
          s.protector.unprotect(
            { keyVersion: s.previous.activeKeyVersion, ciphertext: current.ciphertext },
            AAD,
          ),
        'a current envelope relabelled as the retained version',
      )
      await expectRejected(
        check,
        () =>
          s.protector.unprotect(
            { keyVersion: s.protector.activeKeyVersion, ciphertext: old.ciphertext },
            AAD,
          ),
        'a retained-key envelope relabelled as the active version',
      )
    },
  ),

  case_(
    'protector.concurrent',
    'concurrent seals give distinct envelopes that all open',
    async (s, check) => {
      const secrets = Array.from({ length: 64 }, (_, i) => `secret-${i}-${hex(randomBytes(4))}`)
      const envelopes = await Promise.all(secrets.map((secret) => seal(s, secret)))
      check(
        new Set(envelopes.map((e) => hex(e.ciphertext))).size === secrets.length,
        'two concurrent envelopes collided',
      )
      const opened = await Promise.all(envelopes.map((envelope) => s.protector.unprotect(envelope, AAD)))
      for (const [index, bytes] of opened.entries()) {
        check(
          new TextDecoder().decode(bytes) === secrets[index],
          `concurrent envelope ${index} opened to another secret`,
        )
      }
    },
  ),
]

/** The protector suite as data, for `describeConformance` (one test per case) or `runSuite`. */
export function oauthTransactionProtectorSuite(
  factory: OAuthTransactionProtectorFactory,
  name = 'OAuthTransactionProtector conformance',
): ConformanceSuite<Subject> {
  return {
    name,
    cases,
    createContext: () => factory(),
    disposeContext: (subject) => subject.dispose?.(),
  }
}

/** Runs every protector case; throws an `AggregateError` listing each violated invariant. */
export function assertOAuthTransactionProtectorConformance(
  factory: OAuthTransactionProtectorFactory,
): Promise<void> {
  return assertSuite(oauthTransactionProtectorSuite(factory))
}
