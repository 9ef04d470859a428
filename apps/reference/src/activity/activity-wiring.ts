import type { SecurityEventSink } from '@portcullis/core/local-accounts'
import { SecurityLogWriter, type SecurityLogWriterReport } from '@portcullis/core/security-log'
import { describeUserAgent } from '@portcullis/http/user-agents'
import { type PostgresClient, PostgresSecurityLog } from '@portcullis/postgres'

/** The durable security log of the app and its writer (the event sink every flow is given). */
export interface ActivityLog {
  readonly log: PostgresSecurityLog
  readonly writer: SecurityLogWriter
  /** Hand it every security event (with the app's other sinks). */
  readonly sink: SecurityEventSink
  /** Records a client the person approved on the consent page ("connected an app"). */
  clientConnected(grant: {
    readonly accountId: string
    readonly clientId: string
    readonly clientName: string
  }): void
  /** Writes what is queued (at shutdown). */
  close(): Promise<void>
}

/**
 * The security log in Postgres, written in background batches off the request path (a failing log
 * never fails a request): client addresses as seen, devices parsed from the `User-Agent` (never the
 * raw header). What the writer could not write is said once on stderr (never an event's content).
 */
export function createActivityLog(postgres: PostgresClient): ActivityLog {
  const log = new PostgresSecurityLog({ client: postgres })
  const onReport = (report: SecurityLogWriterReport) => {
    // Once per outage (its first failed write), and every loss.
    const first = report.kind === 'write_failed' && report.attempt === 1
    if (first || report.kind === 'dropped' || report.kind === 'unwritten')
      console.warn(`portcullis reference app: security log ${report.kind.replace('_', ' ')}`)
  }
  const writer = new SecurityLogWriter({ log, describeUserAgent, onReport })
  return {
    log,
    writer,
    sink: writer.sink,
    clientConnected(grant) {
      // The name a client registered is its own text: no control characters, bounded.
      const name = grant.clientName
        .replace(/[\p{Cc}\u2028\u2029]/gu, '')
        .trim()
        .slice(0, 200)
      writer.record({
        type: 'oauth.client_connected',
        at: new Date(),
        accountId: grant.accountId,
        clientId: grant.clientId.slice(0, 200),
        ...(name === '' ? {} : { clientName: name }),
      })
    },
    async close() {
      await writer.close()
    },
  }
}
