/** One versioned schema change. Applied migrations are recorded with a checksum of their SQL. */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}
