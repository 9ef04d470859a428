// Every instance holds one connection that LISTENs for revocation notices (sign-outs, back-channel
// logouts, revoked keys). It is opened with the client's own settings, `application_name` among them:
// name each instance's client, and `pg_stat_activity` tells the instances' listeners apart.
import { hostname } from 'node:os'
import { createPostgresClient, type PostgresClient, PostgresRevocationNotices } from '@portcullis/postgres'

export function instanceClient(
  connectionString: string,
  instance = `${hostname()}/${process.pid}`,
): PostgresClient {
  return createPostgresClient({ connectionString, applicationName: `billing-api/${instance}` })
}

export async function listenForRevocations(postgres: PostgresClient): Promise<PostgresRevocationNotices> {
  const notices = new PostgresRevocationNotices({ client: postgres })
  await notices.start()
  // The listener's row in pg_stat_activity: `pid = notices.listenerProcessId`, with this instance's name.
  return notices
}
