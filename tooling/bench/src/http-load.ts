import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

export interface HttpCase {
  readonly name: string
  readonly url: string
  readonly method?: 'GET' | 'POST'
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

export interface LoadTarget {
  readonly host: string
  readonly port: number
  /** The serialized request, sent again and again on each keep-alive connection. */
  readonly request: Uint8Array
}

export interface LoadPlan {
  readonly targets: readonly [LoadTarget, LoadTarget]
  readonly connections: number
  /** How long one side runs before the other takes over. */
  readonly sliceMs: number
  /** Time per side per round. */
  readonly roundMs: number
  readonly rounds: number
  /** Time per side before measuring. */
  readonly warmupMs: number
}

/** Per side (0: baseline, 1: candidate): responses completed and milliseconds spent. */
export interface RoundResult {
  readonly counts: readonly [number, number]
  readonly ms: readonly [number, number]
}

export interface LoadResult {
  readonly rounds: readonly RoundResult[]
  /** Set when a target answered non-2xx, closed a connection or sent something unparseable. */
  readonly failure?: string
}

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/

/** The raw HTTP/1.1 request for a case; loopback targets only. */
export function loadTarget(target: HttpCase): LoadTarget {
  if (!LOOPBACK.test(target.url)) {
    throw new Error(`${target.name}: benchmarks target loopback addresses only`)
  }
  const url = new URL(target.url)
  const body = target.body === undefined ? undefined : Buffer.from(target.body)
  const lines = [
    `${target.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`,
    `host: ${url.host}`,
    'connection: keep-alive',
    ...Object.entries(target.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    ...(body === undefined ? [] : [`content-length: ${body.length}`]),
  ]
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 80),
    request: body === undefined ? head : Buffer.concat([head, body]),
  }
}

/**
 * Runs the plan in a worker thread, so the servers' event loop does only server work. Both targets are
 * driven in alternating slices of `sliceMs`: on a machine whose speed drifts (shared or throttled CPUs),
 * both sides see the same conditions, which separate runs of a few seconds each do not.
 */
export function interleavedLoad(plan: LoadPlan): Promise<LoadResult> {
  const extension = extname(fileURLToPath(import.meta.url))
  const entry = new URL(`./load-worker${extension}`, import.meta.url)
  // From source (tests), the worker is TypeScript too: it registers the same loader before importing it.
  const worker =
    extension === '.ts'
      ? new Worker(
          `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`,
          { eval: true, workerData: plan },
        )
      : new Worker(entry, { workerData: plan })
  return new Promise((resolve, reject) => {
    worker.once('message', (result: LoadResult) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load worker exited with ${code}`))
    })
  })
}
