import { randomBytes } from 'node:crypto'
import { chmod, link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { generateSecrets } from './generate.js'
import { parseSecretsText, type ReferenceSecrets, SecretsError } from './secrets.js'

/** What `loadOrCreateSecretsFile` found: the secrets and whether this call created the file. */
export interface SecretsFile {
  readonly path: string
  readonly secrets: ReferenceSecrets
  readonly created: boolean
}

const OWNER_READ_WRITE = 0o600

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`

/** Refuses a file others could read or change: anything beyond owner read/write (0600). */
async function checkPermissions(path: string): Promise<void> {
  const info = await stat(path)
  if (!info.isFile()) throw new SecretsError(`secrets file ${path} is not a regular file`)
  if (process.platform === 'win32') return
  if ((info.mode & 0o777 & ~OWNER_READ_WRITE) !== 0) {
    throw new SecretsError(
      `secrets file ${path} has permissions ${octal(info.mode)}, wider than 0600; run chmod 600 ${path}`,
    )
  }
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) {
    throw new SecretsError(`secrets file ${path} belongs to another user (uid ${info.uid})`)
  }
}

/** Reads and checks an existing secrets file (permissions first: a wide file is never read). */
export async function readSecretsFile(path: string): Promise<ReferenceSecrets> {
  await checkPermissions(path)
  const text = await readFile(path, 'utf8')
  try {
    return parseSecretsText(text)
  } catch (error) {
    const problem = error instanceof SecretsError ? error.message : 'it cannot be read'
    throw new SecretsError(
      `secrets file ${path} is malformed: ${problem}; restore it from a backup, or move it away to generate new keys (existing API keys and stored provider tokens then stop working)`,
    )
  }
}

/** Writes `secrets` to a new 0600 file beside `path` and returns its name. */
async function writeTemporary(path: string, secrets: ReferenceSecrets): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temporary, 'wx', OWNER_READ_WRITE)
  try {
    await handle.writeFile(`${JSON.stringify(secrets, null, 2)}\n`, 'utf8')
    await handle.sync()
  } finally {
    await handle.close()
  }
  await chmod(temporary, OWNER_READ_WRITE)
  return temporary
}

/** Replaces the secrets file atomically (readers see the old or the new file, never a half-written one). */
export async function writeSecretsFile(path: string, secrets: ReferenceSecrets): Promise<void> {
  const temporary = await writeTemporary(path, secrets)
  try {
    await rename(temporary, path)
  } catch (error) {
    await unlink(temporary).catch(() => undefined)
    throw error
  }
}

/**
 * The secrets of `path`: generated and written with 0600 permissions on the first call, read and checked
 * afterwards. A file with wider permissions, or one that does not parse, is refused with one line. Two
 * processes starting at once create it once (the loser reads the winner's file).
 */
export async function loadOrCreateSecretsFile(path: string): Promise<SecretsFile> {
  const existing = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw new SecretsError(`secrets file ${path} cannot be read (${error.code ?? 'error'})`)
  })
  if (existing !== undefined) return { path, secrets: await readSecretsFile(path), created: false }
  const secrets = await generateSecrets()
  const temporary = await writeTemporary(path, secrets)
  try {
    // link() never replaces an existing file: exactly one concurrent creator wins.
    await link(temporary, path)
    return { path, secrets, created: true }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return { path, secrets: await readSecretsFile(path), created: false }
  } finally {
    await unlink(temporary).catch(() => undefined)
  }
}
