// Writes docs/performance.md from the results `pnpm bench` collected (one JSON line per comparison or
// table, see compare.ts): the machine, every budget as met / missed / not measured, every comparison with
// its round spread, and the report-only tables. Usage: tsx src/performance-report.ts <results> <out>
//
// The entries behind the page are kept beside it (`performance-results.jsonl`). A run that measured only
// some bench files (`PORTCULLIS_BENCH_RESULTS=... tsx bench/x.bench.ts`, then this script) replaces the
// entries of those files and keeps the others, each shown with the date it was measured.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, freemem, totalmem } from 'node:os'
import { BUDGETS, PEERS_NOT_MEASURED } from './budgets.js'
import type { ComparisonResult } from './compare.js'
import { PART_NOTES } from './part-notes.js'

interface Origin {
  readonly source?: string
  /** The bench file that measured it (`credentials.bench.ts`). */
  readonly bench?: string
  /** `YYYY-MM-DD HH:MM` (UTC). */
  readonly measuredAt?: string
  /**
   * How many rounds were measured, when `rounds` keeps only the lowest and highest (figures carried over
   * from a page written before the entries were kept).
   */
  readonly roundCount?: number
  /** The machine's 1-minute load average when it was measured (2 cores: above 2, other work competed). */
  readonly loadAverage?: number
}

type Entry =
  | ({ readonly kind: 'comparison' } & Origin & ComparisonResult)
  | ({
      readonly kind: 'table'
      readonly title: string
      readonly header: readonly string[]
      readonly rows: readonly (readonly string[])[]
    } & Origin)

const [resultsFile, outFile] = process.argv.slice(2)
if (resultsFile === undefined || outFile === undefined) {
  console.error('usage: performance-report <results.jsonl> <performance.md>')
  process.exit(2)
}
const readEntries = (file: string): Entry[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Entry)
    : []
const fileOf = (entry: Entry) => `${entry.source ?? ''} ${entry.bench ?? ''}`
const measured = readEntries(resultsFile)
const ran = new Set(measured.map(fileOf))
const keptFile = outFile.replace(/\.md$/, '-results.jsonl')
// entries of bench files this run did not measure stay, in their place
const entries: Entry[] = [...readEntries(keptFile).filter((entry) => !ran.has(fileOf(entry))), ...measured]
const sourceOrder = [...new Set(entries.map((entry) => entry.source ?? ''))]
entries.sort((a, b) => sourceOrder.indexOf(a.source ?? '') - sourceOrder.indexOf(b.source ?? ''))
writeFileSync(keptFile, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''))
const runs = [...new Set(entries.map((entry) => entry.measuredAt).filter((at) => at !== undefined))].sort()
const comparisons = entries.filter((entry) => entry.kind === 'comparison')
const tables = entries.filter((entry) => entry.kind === 'table')

const fixed = (value: number, digits = 2) => value.toFixed(digits)
const spread = ({ rounds, roundCount }: { rounds: readonly number[]; roundCount?: number }) =>
  rounds.length === 0
    ? '-'
    : `${fixed(Math.min(...rounds))}-${fixed(Math.max(...rounds))} (${roundCount ?? rounds.length})`
const cell = (text: string) => text.replaceAll('|', '\\|')

const cpu = cpus()
const lines: string[] = [
  '# Performance',
  '',
  'Written by `pnpm bench` (do not edit by hand). Every figure is a ratio measured side by side in one run',
  '(paired, interleaved rounds; the median of the per-round ratios), never an absolute time. The spread',
  'column gives the lowest and highest round and the number of rounds: a wide spread means a noisy machine.',
  'The 10-minute soak run (`pnpm soak`: throughput, p99 and heap over time) is in [soak.md](soak.md).',
  'A run of some bench files replaces their figures and keeps the others (performance-results.jsonl).',
  '',
  `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${fixed(totalmem() / 2 ** 30, 1)} GiB memory`,
  `(${fixed(freemem() / 2 ** 30, 1)} GiB free at the end), Node.js ${process.version}, ${process.platform}/${process.arch},`,
  runs.length <= 1
    ? `measured ${runs[0] ?? new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`
    : `measured in runs from ${runs[0]} to ${runs[runs.length - 1]} UTC (the Run column: when each figure was measured).`,
  '',
  '## Budgets',
  '',
  '| Budget | Required | Measured | Rounds | Verdict | Run |',
  '| --- | ---: | ---: | --- | --- | --- |',
]
for (const budget of BUDGETS) {
  const found = comparisons.filter((entry) => entry.id === budget.id)
  if (found.length === 0) {
    lines.push(`| ${cell(budget.what)} | >= ${budget.budget}x | - | - | not measured (${budget.bench}) | - |`)
    continue
  }
  for (const result of found) {
    const met = result.ratio >= budget.budget
    lines.push(
      `| ${cell(budget.what)} | >= ${budget.budget}x | ${fixed(result.ratio)}x | ${spread(result)} | ${met ? 'met' : `**missed** by ${fixed(budget.budget - result.ratio)}`} | ${result.measuredAt ?? '-'} |`,
    )
  }
}
if (PEERS_NOT_MEASURED.length > 0) {
  lines.push('', '## Peers not measured', '')
  for (const { peer, why } of PEERS_NOT_MEASURED) lines.push(`- ${peer}: ${why}.`)
}
lines.push('', '## What each part costs', '')
for (const { what, note } of PART_NOTES) lines.push(`- **${what}.** ${note}`)
lines.push(
  '',
  '## Every comparison',
  '',
  '| Package | Comparison | Candidate | Baseline | Ratio | Rounds | Run (load) |',
)
lines.push('| --- | --- | ---: | ---: | ---: | --- | --- |')
for (const result of comparisons) {
  lines.push(
    `| ${result.source ?? ''} | ${cell(result.title)} | ${cell(result.candidate.name)} ${fixed(result.candidate.perSecond, 0)}/s | ${cell(result.baseline.name)} ${fixed(result.baseline.perSecond, 0)}/s | ${fixed(result.ratio)}x${result.budget === undefined ? '' : ` (budget ${result.budget}x)`} | ${spread(result)} | ${result.measuredAt ?? '-'}${result.loadAverage === undefined ? '' : ` (${result.loadAverage})`} |`,
  )
}
for (const table of tables) {
  lines.push('', `## ${table.title}`, '')
  if (table.measuredAt !== undefined)
    lines.push(`Measured ${table.measuredAt} UTC (${table.bench ?? ''}).`, '')
  lines.push(`| ${table.header.map(cell).join(' | ')} |`, `| ${table.header.map(() => '---').join(' | ')} |`)
  for (const row of table.rows) lines.push(`| ${row.map(cell).join(' | ')} |`)
}
writeFileSync(outFile, `${lines.join('\n')}\n`)
console.log(`\n${lines.slice(lines.indexOf('## Budgets')).join('\n')}\n\nwritten to ${outFile}`)
