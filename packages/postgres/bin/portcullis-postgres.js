#!/usr/bin/env node
// The `portcullis-postgres` command (migrate, status, sweep, protector). The implementation is compiled to
// dist/cli; this file exists before any build, so package managers can always link the command.
import('../dist/cli/main.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND') {
    console.error('portcullis-postgres: not built yet; run pnpm --filter @portcullis/postgres build')
    process.exit(2)
  }
  throw error
})
