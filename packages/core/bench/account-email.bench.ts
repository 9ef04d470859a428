// Known and unknown addresses cost the same: sign-up with an address another account verified vs a new
// address (one scrypt hash either way), and a reset or sign-in code request for an unknown vs a known
// address, each pair measured against the other in the same run, both ways. Budget (DESIGN section 5):
// medians within 5%, so each direction keeps >= 0.95x. Memory stores: what is compared is the flows' own work.
import { randomBytes, scrypt } from 'node:crypto'
import { compareOps, finish } from '@portcullis/bench'
import { AccountEmail } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing, MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import {
  blocklistPasswordScreen,
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { MemoryMailOutbox, MemoryNotificationSettings } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'

const derive = (password: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, 32, { N: 4096, r: 8, p: 1 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
const hasher: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(16)
    return `$s$${salt.toString('base64url')}$${(await derive(password, salt)).toString('base64url')}`
  },
  async verify(encoded, password) {
    const [, , salt = '', hash = ''] = encoded.split('$')
    return (await derive(password, Buffer.from(salt, 'base64url'))).toString('base64url') === hash
  },
  needsRehash: () => false,
}
const outbox = new MemoryMailOutbox()
const codes = new MemoryOneTimeCodeStore({ outbox, capacity: 10_000_000 })
const accounts = new MemoryAccountStore({ outbox, cascade: [codes] })
const rateLimits = new MemoryRateLimitStore()
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions: new MemorySessionStore(),
  rateLimits,
  hasher,
  registration: 'open',
  publicOrigin: 'https://app.example',
  passwordScreen: blocklistPasswordScreen({ passwords: ['password'] }),
  signInWith: ['username', 'email'],
})
const unlimited = { limit: 1_000_000, windowSeconds: 86_400 }
const email = new AccountEmail({
  accounts,
  local,
  codes,
  outbox,
  notificationSettings: new MemoryNotificationSettings(),
  protector,
  codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
  publicOrigin: 'https://app.example',
  rateLimits,
  signInWith: ['username', 'email'],
  limits: { perAddress: unlimited, perClient: unlimited },
  signInCode: { enabled: true },
})
const PASSWORD = 'a long and unusual passphrase'
const { flow } = await email.signUp({ email: 'taken@example.com', password: PASSWORD })
const sent = outbox.pending().at(-1)
if (sent === undefined) throw new Error('no verification mail')
const { openOutboxMessage } = await import('@portcullis/core/mail')
const message = await openOutboxMessage(protector, sent)
if (message.kind !== 'verification') throw new Error('not a verification')
await email.verifyEmail({ flow, code: message.code })

// Fixed addresses on both sides, so rate-limit keys and superseded codes behave alike: an unverified
// address is new every time (each sign-up makes an account that holds it unverified).
const signUpNew = () => email.signUp({ email: 'new@example.com', password: PASSWORD })
const signUpTaken = () => email.signUp({ email: 'taken@example.com', password: PASSWORD })
const resetKnown = () => email.requestPasswordReset({ email: 'taken@example.com' })
const resetUnknown = () => email.requestPasswordReset({ email: 'nobody@example.com' })
const codeKnown = () => email.requestSignInCode({ email: 'taken@example.com' })
const codeUnknown = () => email.requestSignInCode({ email: 'nobody@example.com' })

await compareOps({
  id: 'account-email-sign-up',
  title: 'email sign-up: an address with an account vs a new address',
  budget: 0.95,
  rounds: 7,
  durationMs: 1500,
  baseline: { name: 'new address', fn: signUpNew },
  candidate: { name: 'taken address', fn: signUpTaken },
})
await compareOps({
  title: 'email sign-up: a new address vs an address with an account (the other direction)',
  budget: 0.95,
  rounds: 7,
  durationMs: 1500,
  baseline: { name: 'taken address', fn: signUpTaken },
  candidate: { name: 'new address', fn: signUpNew },
})
await compareOps({
  id: 'account-email-reset',
  title: 'password reset request: an unknown vs a known address',
  budget: 0.95,
  rounds: 7,
  durationMs: 1500,
  baseline: { name: 'known address', fn: resetKnown },
  candidate: { name: 'unknown address', fn: resetUnknown },
})
await compareOps({
  title: 'password reset request: a known vs an unknown address (the other direction)',
  budget: 0.95,
  rounds: 7,
  durationMs: 1500,
  baseline: { name: 'unknown address', fn: resetUnknown },
  candidate: { name: 'known address', fn: resetKnown },
})
await compareOps({
  id: 'account-email-sign-in-code',
  title: 'sign-in code request: an unknown vs a known address',
  budget: 0.95,
  rounds: 7,
  durationMs: 1500,
  baseline: { name: 'known address', fn: codeKnown },
  candidate: { name: 'unknown address', fn: codeUnknown },
})
await compareOps({
  title: 'sign-in code request: a known vs an unknown address (the other direction)',
  budget: 0.95,
  rounds: 7,
  durationMs: 1500,
  baseline: { name: 'unknown address', fn: codeUnknown },
  candidate: { name: 'known address', fn: codeKnown },
})

finish()
