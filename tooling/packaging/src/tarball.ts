import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { runOrThrow } from './commands.js'
import type { WorkspacePackage } from './workspace.js'

const BLOCK = 512

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length)
  const end = raw.indexOf(0)
  return raw.subarray(0, end === -1 ? length : end).toString('utf8')
}

/** `path=...` of a PAX extended header (long names), if it has one. */
function paxPath(body: Buffer): string | undefined {
  for (const record of body.toString('utf8').split('\n')) {
    const match = /^\d+ path=(.*)$/.exec(record)
    if (match !== null) return match[1]
  }
  return undefined
}

/**
 * The regular files of a `.tgz` package (ustar with PAX long names, as pnpm and npm write them), by path
 * inside the package (`package/` stripped).
 */
export function readTarball(gzipped: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(gzipped)
  const files = new Map<string, Buffer>()
  let offset = 0
  let longName: string | undefined
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK)
    if (header.every((byte) => byte === 0)) break
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8)
    const type = field(header, 156, 1)
    const body = tar.subarray(offset + BLOCK, offset + BLOCK + size)
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK
    if (type === 'x') {
      longName = paxPath(body)
      continue
    }
    const prefix = field(header, 345, 155)
    const name = longName ?? (prefix === '' ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`)
    longName = undefined
    if (type === '0' || type === '') files.set(name.replace(/^package\//, ''), Buffer.from(body))
  }
  return files
}

export interface PackedPackage {
  readonly name: string
  readonly tarball: string
  readonly files: Map<string, Buffer>
  /** The package.json inside the tarball (what npm installs). */
  readonly manifest: Record<string, unknown>
}

/** `pnpm pack` of one workspace package into `destination` (no build: pack what is there). */
export async function pack(workspacePackage: WorkspacePackage, destination: string): Promise<PackedPackage> {
  const { stdout } = await runOrThrow('pnpm', ['pack', '--pack-destination', destination], {
    cwd: workspacePackage.directory,
    env: process.env,
    timeoutMs: 60_000,
  })
  const tarballName = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((line) => line.trim().endsWith('.tgz'))
  if (tarballName === undefined) throw new Error(`pnpm pack printed no tarball: ${stdout}`)
  return readPackedPackage(
    workspacePackage.name,
    join(destination, tarballName.trim().split('/').pop() ?? ''),
  )
}

/** A tarball `pnpm pack` made earlier: its files and the manifest inside it. */
export async function readPackedPackage(name: string, tarball: string): Promise<PackedPackage> {
  const files = readTarball(await readFile(tarball))
  const manifestBytes = files.get('package.json')
  if (manifestBytes === undefined) throw new Error(`${tarball} has no package.json`)
  return {
    name,
    tarball,
    files,
    manifest: JSON.parse(manifestBytes.toString('utf8')) as Record<string, unknown>,
  }
}
