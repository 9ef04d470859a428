import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import { accounts } from '@portcullis/core/oauth'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import type { OAuthAccountStoreFixture } from '../../src/oauth/index.js'

/** A real AES-256-GCM protector under a fresh random key. */
export function realProtector(): OAuthTransactionProtector {
  return new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
}

/** The reference memory store with the real protector, as an implementer would wire their own store. */
export function memoryFixture(
  protector: OAuthTransactionProtector = realProtector(),
  options: { readonly withOutbox?: boolean } = {},
): OAuthAccountStoreFixture {
  const outbox = options.withOutbox === false ? undefined : new MemoryMailOutbox()
  const accountStore = new MemoryAccountStore(outbox === undefined ? {} : { outbox })
  const store = accountStore.oauth({ provider: 'example-idp', clientId: 'client-1', protector })
  return {
    store,
    accountStore,
    inspector: accounts.inspectMemoryOAuthAccountStore(store),
    ...(outbox === undefined ? {} : { outbox }),
  }
}
