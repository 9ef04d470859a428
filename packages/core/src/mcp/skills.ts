import { constants, type Dirent } from 'node:fs'
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import { parseFrontMatter } from './front-matter.js'

/** One file of a skill, published as `skill://<skill>/<relative-path>`. */
export interface SkillFile {
  readonly uri: string
  readonly skill: string
  /** Path relative to the skill folder, `/`-separated. */
  readonly path: string
  /** `SKILL.md` entries carry the skill name; other files `<skill>/<path>`. */
  readonly name: string
  readonly description?: string
  readonly mimeType: string
  /** Size in bytes when the catalog was loaded. */
  readonly size: number
}

/** A file the loader would not publish, and why (for startup diagnostics). */
export interface RefusedSkillFile {
  readonly skill: string
  readonly path: string
  readonly reason: 'symlink-escape' | 'symlink-directory' | 'too-large' | 'not-a-file'
}

export interface SkillCatalogOptions {
  /** Larger files are refused (listed in `refused`, never served). Default 1 MiB. */
  readonly maxFileBytes?: number
  /** More files in one skill is a startup error. Default 512. */
  readonly maxFilesPerSkill?: number
  /** Deeper nesting is a startup error. Default 8. */
  readonly maxDepth?: number
}

/** The skills published from one directory; a snapshot of the file list taken at load. */
export interface SkillCatalog {
  readonly directory: string
  /** Every published file: per skill (by name), `SKILL.md` first, then by path. */
  readonly files: readonly SkillFile[]
  readonly refused: readonly RefusedSkillFile[]
  /** Current bytes of a listed file, or undefined when the URI is not a published, readable file. */
  read(uri: string): Promise<{ readonly mimeType: string; readonly body: Uint8Array } | undefined>
}

const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/plain',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
}

const SKILL_CATALOG_OPTIONS: OptionsShape<SkillCatalogOptions> = {
  maxFileBytes: { kind: 'number', code: 'mcp.skill_invalid' },
  maxFilesPerSkill: { kind: 'number', code: 'mcp.skill_invalid' },
  maxDepth: { kind: 'number', code: 'mcp.skill_invalid' },
}

function skillError(message: string): ConfigurationError {
  return new ConfigurationError('mcp.skill_invalid', message)
}

interface Limits {
  readonly maxFileBytes: number
  readonly maxFilesPerSkill: number
  readonly maxDepth: number
}

interface Located extends SkillFile {
  readonly absolute: string
  readonly root: string
}

function inside(root: string, candidate: string): boolean {
  return candidate.startsWith(root + sep)
}

async function walk(
  skill: string,
  root: string,
  limits: Limits,
  refused: RefusedSkillFile[],
): Promise<Located[]> {
  const found: Located[] = []
  const visit = async (directory: string, depth: number): Promise<void> => {
    if (depth > limits.maxDepth) throw skillError(`skill ${skill}: nesting deeper than ${limits.maxDepth}`)
    const entries: Dirent[] = await readdir(directory, { withFileTypes: true })
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue
      const absolute = join(directory, entry.name)
      const path = relative(root, absolute).split(sep).join('/')
      if (entry.isDirectory()) {
        await visit(absolute, depth + 1)
        continue
      }
      let info = await lstat(absolute)
      if (entry.isSymbolicLink()) {
        const target = await realpath(absolute).catch(() => undefined)
        if (target === undefined || !inside(root, target)) {
          refused.push({ skill, path, reason: 'symlink-escape' })
          continue
        }
        info = await stat(target)
        if (info.isDirectory()) {
          refused.push({ skill, path, reason: 'symlink-directory' })
          continue
        }
      }
      if (!info.isFile()) {
        refused.push({ skill, path, reason: 'not-a-file' })
        continue
      }
      if (info.size > limits.maxFileBytes) {
        refused.push({ skill, path, reason: 'too-large' })
        continue
      }
      if (found.length >= limits.maxFilesPerSkill) {
        throw skillError(`skill ${skill}: more than ${limits.maxFilesPerSkill} files`)
      }
      const uri = `skill://${skill}/${path.split('/').map(encodeURIComponent).join('/')}`
      const mimeType = MIME_BY_EXTENSION[extname(entry.name).toLowerCase()] ?? 'application/octet-stream'
      found.push({ uri, skill, path, name: `${skill}/${path}`, mimeType, size: info.size, absolute, root })
    }
  }
  await visit(root, 0)
  return found
}

async function readBounded(file: Located, maxFileBytes: number): Promise<Uint8Array | undefined> {
  const real = await realpath(file.absolute).catch(() => undefined)
  if (real === undefined || !inside(file.root, real)) return undefined
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined)
  if (handle === undefined) return undefined
  try {
    const info = await handle.stat()
    if (!info.isFile() || info.size > maxFileBytes) return undefined
    const buffer = Buffer.alloc(info.size)
    const { bytesRead } = await handle.read(buffer, 0, info.size, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

async function loadSkill(name: string, root: string, limits: Limits, refused: RefusedSkillFile[]) {
  if (!SKILL_NAME.test(name)) throw skillError(`skill folder ${JSON.stringify(name)} is not a URI-safe name`)
  const files = await walk(name, root, limits, refused)
  const skillFile = files.find((file) => file.path === 'SKILL.md')
  if (skillFile === undefined) throw skillError(`skill ${name}: SKILL.md is not a readable regular file`)
  const bytes = await readBounded(skillFile, limits.maxFileBytes)
  const front = bytes === undefined ? undefined : parseFrontMatter(Buffer.from(bytes).toString('utf8'))
  if (front === undefined) throw skillError(`skill ${name}: SKILL.md has no front matter`)
  if (front.name !== name) throw skillError(`skill ${name}: front matter name must equal the folder name`)
  const description = front.description
  if (description === undefined || description.length === 0) {
    throw skillError(`skill ${name}: front matter needs a description`)
  }
  const main: Located = { ...skillFile, name, description }
  return [main, ...files.filter((file) => file !== skillFile)]
}

function positive(value: number | undefined, fallback: number, field: string): number {
  const chosen = value ?? fallback
  if (!(Number.isSafeInteger(chosen) && chosen > 0)) throw skillError(`${field} must be a positive integer`)
  return chosen
}

/**
 * Loads a skills directory: one folder per skill, each with a `SKILL.md` whose front matter has `name`
 * (equal to the folder name) and `description`. Folders without `SKILL.md`, and dot-files, are skipped.
 * Every other file is published; symlinks whose target leaves the skill folder, symlinked directories,
 * special files and files over `maxFileBytes` are refused. Reads re-check containment and size, and only
 * listed URIs resolve, so `..`, encoded separators and unknown paths are misses.
 */
export async function loadSkillCatalog(
  directory: string,
  options: SkillCatalogOptions = {},
): Promise<SkillCatalog> {
  readOptions(options, 'loadSkillCatalog', SKILL_CATALOG_OPTIONS)
  const limits: Limits = {
    maxFileBytes: positive(options.maxFileBytes, 1024 * 1024, 'maxFileBytes'),
    maxFilesPerSkill: positive(options.maxFilesPerSkill, 512, 'maxFilesPerSkill'),
    maxDepth: positive(options.maxDepth, 8, 'maxDepth'),
  }
  const base = await realpath(directory).catch(() => {
    throw skillError('the skills directory does not exist')
  })
  const refused: RefusedSkillFile[] = []
  const located: Located[] = []
  const entries = await readdir(base, { withFileTypes: true })
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue
    if (entry.isSymbolicLink()) refused.push({ skill: entry.name, path: '', reason: 'symlink-directory' })
    if (!entry.isDirectory()) continue
    const root = join(base, entry.name)
    const hasSkillFile = await lstat(join(root, 'SKILL.md')).then(
      () => true,
      () => false,
    )
    if (hasSkillFile) located.push(...(await loadSkill(entry.name, root, limits, refused)))
  }
  const byUri = new Map(located.map((file) => [file.uri, file]))
  const files = located.map(({ absolute: _absolute, root: _root, ...file }) => Object.freeze(file))
  return Object.freeze({
    directory: base,
    files: Object.freeze(files),
    refused: Object.freeze(refused),
    async read(uri: string) {
      const file = byUri.get(uri)
      if (file === undefined) return undefined
      const body = await readBounded(file, limits.maxFileBytes)
      return body === undefined ? undefined : { mimeType: file.mimeType, body }
    },
  })
}
