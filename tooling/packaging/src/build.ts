import { runOrThrow } from './commands.js'
import { WORKSPACE_ROOT, type WorkspacePackage } from './workspace.js'

/**
 * Builds the packages through turbo: `dist/` is restored from turbo's cache when the sources are unchanged
 * (as after `pnpm test` built them for this task), and compiled otherwise, so a clean clone without
 * `dist/` works too. `--only`: a package compiles against its workspace dependencies' sources (the
 * `@portcullis/source` condition), so their builds are not needed first. `-- --noCheck`: each package's
 * `tsc -p tsconfig.build.json` emits without checking types again (its program holds the sources of
 * every workspace package it imports, so each build checked `core` once more); the same `pnpm test`
 * checks every file once in `typecheck:workspace`. The JavaScript is byte for byte what a checked build
 * writes, and parse, option and declaration-emit errors still fail the build.
 */
export async function buildPackages(packages: readonly WorkspacePackage[]): Promise<void> {
  const filters = packages.flatMap((entry) => ['--filter', entry.name])
  await runOrThrow(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', ...filters, '--only', '--output-logs=errors-only', '--', '--noCheck'],
    {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      // Bounded, but generous: on a 2-core machine this runs beside the first wave of slow suites.
      timeoutMs: 600_000,
    },
  )
}
