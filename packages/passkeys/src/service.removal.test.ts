import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import type { PasskeyCredential } from '@portcullis/core/passkeys'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { describe, expect, it } from 'vitest'
import { PasskeyService } from './service.js'

const T0 = new Date('2031-03-04T05:06:07.000Z')
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$c29tZWhhc2g'

function credential(accountId: string): PasskeyCredential {
  return {
    credentialId: randomBytes(32).toString('base64url'),
    accountId,
    publicKey: new Uint8Array(randomBytes(77)),
    counter: 0,
    transports: ['internal'],
    deviceType: 'multiDevice',
    backedUp: true,
    name: 'Laptop',
    createdAt: T0,
    lastUsedAt: null,
    suspendedAt: null,
  }
}

async function setup() {
  const events: SecurityEvent[] = []
  const passkeys = new MemoryPasskeyStore()
  const accounts = new MemoryAccountStore({ cascade: [passkeys] })
  await accounts.createAccount({ accountId: 'alice', username: 'alice', passwordHash: HASH, now: T0 })
  const service = new PasskeyService({
    rpId: 'app.example',
    rpName: 'Portcullis',
    origins: ['https://app.example'],
    passkeys,
    challenges: new MemoryPasskeyChallengeStore(),
    pepper: randomBytes(32),
    events: (event) => {
      events.push(event)
    },
  })
  return { accounts, passkeys, service, events }
}

describe('removing passkeys: a passkey is a sign-in method of the account', () => {
  it('removes a passkey beside a password and reports it', async () => {
    const { passkeys, service, events } = await setup()
    const key = credential('alice')
    await passkeys.addPasskey(key)
    await expect(service.remove({ accountId: 'alice', credentialId: key.credentialId })).resolves.toBe(true)
    expect(events.map((event) => event.type)).toEqual(['passkey.removed'])
  })

  it('lets the password go beside a passkey, then refuses the last passkey (account.final_method)', async () => {
    const { accounts, passkeys, service, events } = await setup()
    const key = credential('alice')
    await passkeys.addPasskey(key)
    expect((await accounts.removePassword({ accountId: 'alice', now: T0 })).outcome).toBe('removed')
    await expect(
      service.remove({ accountId: 'alice', credentialId: key.credentialId }),
    ).rejects.toMatchObject({
      code: 'account.final_method',
    })
    expect(await passkeys.findPasskey(key.credentialId)).not.toBeNull()
    expect(events).toEqual([])
  })

  it("answers false for another account's passkey and leaves it", async () => {
    const { passkeys, service } = await setup()
    const key = credential('bob')
    await passkeys.addPasskey(key)
    await expect(service.remove({ accountId: 'alice', credentialId: key.credentialId })).resolves.toBe(false)
    expect(await passkeys.findPasskey(key.credentialId)).not.toBeNull()
  })
})
