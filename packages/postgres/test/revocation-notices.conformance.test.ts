import { revocationNoticesSuite } from '@portcullis/conformance/revocation'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll } from 'vitest'
import { PostgresRevocationNotices } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

// Two instances: each its own pool and its own listening connection, on one database and channel.
const other = db.connect(4)

describeConformance(
  revocationNoticesSuite(
    async () => {
      const notices = new PostgresRevocationNotices({ client: db.client, reconnectDelayMs: 20 })
      const peer = new PostgresRevocationNotices({ client: other, reconnectDelayMs: 20 })
      await Promise.all([notices.start(), peer.start()])
      return {
        notices,
        peer,
        async interruptPeer() {
          const pid = peer.listenerProcessId
          if (pid === undefined) throw new Error('the peer is not connected')
          await db.client.pool.query('select pg_terminate_backend($1)', [pid])
        },
        async dispose() {
          await Promise.all([notices.close(), peer.close()])
        },
      }
    },
    { listenerCanDrop: true },
  ),
)
