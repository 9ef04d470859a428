import { defineConfig } from 'drizzle-kit'

/**
 * The drizzle table definitions (`src/**\/tables.ts`) are the one description of the schema.
 * `pnpm db:generate` writes a new migration into `drizzle/` after a definition changes; the drift test
 * fails when the definitions and the committed migrations disagree.
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/*/tables.ts',
  out: process.env.PORTCULLIS_DRIZZLE_OUT ?? './drizzle',
})
