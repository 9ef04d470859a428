import { runCli } from './run.js'

/** `pnpm --filter @portcullis/reference cli <command>` */
runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code
})
