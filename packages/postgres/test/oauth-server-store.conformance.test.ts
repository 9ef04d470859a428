import { oauthServerStoreSuite } from '@portcullis/conformance/authorization-server'
import { describeConformance } from '@portcullis/conformance/vitest'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { afterAll } from 'vitest'
import {
  PostgresAccountStore,
  PostgresMailOutbox,
  PostgresOAuthServerStore,
  PostgresRevocationNotices,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'

// Every case uses fresh accounts and entry ids, so the cases share one database and one listener: the
// notices a store sends in its transaction are heard through a real LISTEN connection.
const db = await migratedDatabase()
const listener = new PostgresRevocationNotices({ client: db.client, reconnectDelayMs: 20 })
const heard: RevocationNotice[] = []
listener.subscribe({ revoked: (notice) => heard.push(notice), flush: () => undefined })
await listener.start()
afterAll(async () => {
  await listener.close()
  await db.close()
})

describeConformance(
  oauthServerStoreSuite(({ clock }) => ({
    store: new PostgresOAuthServerStore({ client: db.client, clock }),
    accounts: new PostgresAccountStore({ client: db.client }),
    heard: () => heard,
    outbox: new PostgresMailOutbox({ client: db.client }),
  })),
)
