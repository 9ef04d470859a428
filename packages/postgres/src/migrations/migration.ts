/** One versioned schema change. Applied migrations are recorded with a checksum of their SQL. */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

/** One migration drizzle-kit wrote into `drizzle/`: its journal index and tag, and its SQL file's text. */
export interface DrizzleMigration {
  readonly idx: number
  readonly tag: string
  readonly sql: string
}
