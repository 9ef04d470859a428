#!/usr/bin/env node
import { runCli } from './run.js'

const code = await runCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
})
process.exitCode = code
