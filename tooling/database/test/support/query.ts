import pg from 'pg'

/** One statement on a fresh connection, closed afterwards. */
export async function query<T extends pg.QueryResultRow>(
  connectionString: string,
  sql: string,
): Promise<T[]> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}
