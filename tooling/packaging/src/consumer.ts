import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanEnvironment, runOrThrow } from './commands.js'

/** A project outside the workspace with the tarballs installed by npm, as a user installs them. */
export interface ConsumerProject {
  readonly directory: string
  /** `name -> resolved` of every installed package, from npm's lockfile. */
  readonly resolved: ReadonlyMap<string, string>
  remove(): Promise<void>
}

/** Third-party packages the consumer app and the examples import themselves. */
const THIRD_PARTY = {
  express: '5.2.1',
  fastify: '5.12.8',
  hono: '4.13.19',
  // the OpenTelemetry package's peer and the SDK its README example registers
  '@opentelemetry/api': '1.9.1',
  '@opentelemetry/sdk-trace-base': '2.12.1',
}

/**
 * What a project's manifest needs to install every tarball: each as a `file:` dependency, and each pinned
 * to its tarball through `overrides`, so that nothing of ours can come from a registry (between our
 * packages too).
 */
export function tarballDependencies(tarballs: ReadonlyMap<string, string>): {
  readonly dependencies: Record<string, string>
  readonly overrides: Record<string, string>
} {
  const ours = Object.fromEntries([...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]))
  return { dependencies: ours, overrides: ours }
}

/** `npm install` in `directory` (its package.json), outside the workspace; `name -> resolved` from the lockfile. */
export async function npmInstall(directory: string, timeoutMs = 180_000): Promise<Map<string, string>> {
  await runOrThrow('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: directory,
    env: cleanEnvironment(),
    timeoutMs,
  })
  const lock = JSON.parse(await readFile(join(directory, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { resolved?: string }>
  }
  const resolved = new Map<string, string>()
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path.startsWith('node_modules/'))
      resolved.set(path.slice('node_modules/'.length), entry.resolved ?? '')
  }
  return resolved
}

/**
 * Creates a fresh project under the OS temporary folder and `npm install`s the tarballs there. Every
 * `@portcullis/*` dependency, direct or between the packages, is pinned to its tarball (`overrides`), so
 * nothing of ours can come from a registry; third-party packages come from npm (its cache first).
 */
export async function installConsumer(tarballs: ReadonlyMap<string, string>): Promise<ConsumerProject> {
  const directory = await mkdtemp(join(tmpdir(), 'portcullis-consumer-'))
  const remove = () => rm(directory, { recursive: true, force: true })
  try {
    const { dependencies, overrides } = tarballDependencies(tarballs)
    const manifest = {
      name: 'portcullis-consumer',
      version: '0.0.0',
      private: true,
      type: 'module',
      dependencies: { ...dependencies, ...THIRD_PARTY },
      overrides,
    }
    await writeFile(join(directory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    return { directory, resolved: await npmInstall(directory), remove }
  } catch (error) {
    await remove()
    throw error
  }
}
