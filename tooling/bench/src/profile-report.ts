// Where a bench process's main thread spent its time, from a V8 CPU profile of the run
// (`node --cpu-prof --cpu-prof-dir=<dir> ... bench/x.bench.ts`), as a report table for docs/performance.md.
// Usage (PORTCULLIS_BENCH_RESULTS set, as for the bench itself):
//   tsx src/profile-report.ts <profile.cpuprofile> <package> <bench file> <title>
import { appendFileSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string }
}
interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

/** The part of the stack a sample's own frame belongs to. */
export function placeOf(functionName: string, url: string): string {
  if (functionName === '(idle)') return 'idle (waiting for the network)'
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (functionName === 'writev' || functionName === 'writeBuffer' || functionName === 'writeUtf8String') {
    return 'socket writes (kernel)'
  }
  if (url === '') return 'other native code (V8, crypto, JSON)'
  const pnpm = /node_modules\/\.pnpm\/(@[^+]+\+[^@]+|[^@/]+)@/.exec(url)
  if (pnpm !== null) return (pnpm[1] as string).replace('+', '/')
  const workspace = /\/(packages|tooling)\/([^/]+)\//.exec(url)
  if (workspace !== null) return `@portcullis/${workspace[2]}`
  if (url.startsWith('node:')) return url.startsWith('node:_http') ? 'node:http' : 'node: other internals'
  return 'other'
}

const [file, source, bench, title] = process.argv.slice(2)
if (file === undefined || source === undefined || bench === undefined || title === undefined) {
  console.error('usage: profile-report <profile.cpuprofile> <package> <bench file> <title>')
  process.exit(2)
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const spent = new Map<string, number>()
let total = 0
profile.samples.forEach((id, index) => {
  const frame = nodes.get(id)?.callFrame
  const delta = profile.timeDeltas[index] ?? 0
  if (frame === undefined) return
  const place = placeOf(frame.functionName, frame.url)
  spent.set(place, (spent.get(place) ?? 0) + delta)
  total += delta
})
const rows = [...spent]
  .sort((a, b) => b[1] - a[1])
  .map(([place, micros]) => [place, `${((100 * micros) / total).toFixed(1)}%`, (micros / 1e6).toFixed(1)])
const entry = {
  kind: 'table',
  title,
  header: ['Where (own frame of each sample)', 'Share of the main thread', 'Seconds'],
  rows,
  source,
  bench,
  measuredAt: new Date().toISOString().slice(0, 16).replace('T', ' '),
  loadAverage: Math.round((loadavg()[0] ?? 0) * 10) / 10,
}
const results = process.env.PORTCULLIS_BENCH_RESULTS
if (results) appendFileSync(results, `${JSON.stringify(entry)}\n`)
console.log(rows.map((row) => row.join('  ')).join('\n'))
