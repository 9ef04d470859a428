// Writes docs/performance.md from the results `pnpm bench` collected (one JSON line per comparison or
// table, see compare.ts): the machine, every budget as met / missed / not measured, every comparison with
// its round spread, and the report-only tables. Usage: tsx src/performance-report.ts <results> <out>
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, freemem, totalmem } from 'node:os'
import { BUDGETS, PEERS_NOT_MEASURED } from './budgets.js'
import type { ComparisonResult } from './compare.js'

type Entry =
  | ({ readonly kind: 'comparison'; readonly source?: string } & ComparisonResult)
  | {
      readonly kind: 'table'
      readonly source?: string
      readonly title: string
      readonly header: readonly string[]
      readonly rows: readonly (readonly string[])[]
    }

const [resultsFile, outFile] = process.argv.slice(2)
if (resultsFile === undefined || outFile === undefined) {
  console.error('usage: performance-report <results.jsonl> <performance.md>')
  process.exit(2)
}
const entries: Entry[] = existsSync(resultsFile)
  ? readFileSync(resultsFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Entry)
  : []
const comparisons = entries.filter((entry) => entry.kind === 'comparison')
const tables = entries.filter((entry) => entry.kind === 'table')

const fixed = (value: number, digits = 2) => value.toFixed(digits)
const spread = (rounds: readonly number[]) =>
  rounds.length === 0 ? '-' : `${fixed(Math.min(...rounds))}-${fixed(Math.max(...rounds))} (${rounds.length})`
const cell = (text: string) => text.replaceAll('|', '\\|')

const cpu = cpus()
const lines: string[] = [
  '# Performance',
  '',
  'Written by `pnpm bench` (do not edit by hand). Every figure is a ratio measured side by side in one run',
  '(paired, interleaved rounds; the median of the per-round ratios), never an absolute time. The spread',
  'column gives the lowest and highest round and the number of rounds: a wide spread means a noisy machine.',
  'The 10-minute soak run (`pnpm soak`: throughput, p99 and heap over time) is in [soak.md](soak.md).',
  '',
  `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${fixed(totalmem() / 2 ** 30, 1)} GiB memory`,
  `(${fixed(freemem() / 2 ** 30, 1)} GiB free at the end), Node.js ${process.version}, ${process.platform}/${process.arch},`,
  `measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  '',
  '## Budgets',
  '',
  '| Budget | Required | Measured | Rounds | Verdict |',
  '| --- | ---: | ---: | --- | --- |',
]
for (const budget of BUDGETS) {
  const found = comparisons.filter((entry) => entry.id === budget.id)
  if (found.length === 0) {
    lines.push(
      `| ${cell(budget.what)} | >= ${budget.budget}x | - | - | not measured in this run (${budget.bench}) |`,
    )
    continue
  }
  for (const result of found) {
    const met = result.ratio >= budget.budget
    lines.push(
      `| ${cell(budget.what)} | >= ${budget.budget}x | ${fixed(result.ratio)}x | ${spread(result.rounds)} | ${met ? 'met' : `**missed** by ${fixed(budget.budget - result.ratio)}`} |`,
    )
  }
}
if (PEERS_NOT_MEASURED.length > 0) {
  lines.push('', '## Peers not measured', '')
  for (const { peer, why } of PEERS_NOT_MEASURED) lines.push(`- ${peer}: ${why}.`)
}
lines.push('', '## Every comparison', '', '| Package | Comparison | Candidate | Baseline | Ratio | Rounds |')
lines.push('| --- | --- | ---: | ---: | ---: | --- |')
for (const result of comparisons) {
  lines.push(
    `| ${result.source ?? ''} | ${cell(result.title)} | ${cell(result.candidate.name)} ${fixed(result.candidate.perSecond, 0)}/s | ${cell(result.baseline.name)} ${fixed(result.baseline.perSecond, 0)}/s | ${fixed(result.ratio)}x${result.budget === undefined ? '' : ` (budget ${result.budget}x)`} | ${spread(result.rounds)} |`,
  )
}
for (const table of tables) {
  lines.push('', `## ${table.title}`, '')
  lines.push(`| ${table.header.map(cell).join(' | ')} |`, `| ${table.header.map(() => '---').join(' | ')} |`)
  for (const row of table.rows) lines.push(`| ${row.map(cell).join(' | ')} |`)
}
writeFileSync(outFile, `${lines.join('\n')}\n`)
console.log(`\n${lines.slice(lines.indexOf('## Budgets')).join('\n')}\n\nwritten to ${outFile}`)
