import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PART_NOTES } from '../src/part-notes.js'

const script = fileURLToPath(new URL('../src/performance-report.ts', import.meta.url))

const comparison = (bench: string, title: string, ratio: number, measuredAt: string) => ({
  kind: 'comparison',
  title,
  baseline: { name: 'base', perSecond: 100 },
  candidate: { name: 'cand', perSecond: 100 * ratio },
  ratio,
  rounds: [ratio],
  passed: true,
  source: '@portcullis/example',
  bench,
  measuredAt,
  loadAverage: 1.5,
})
const lines = (entries: object[]) => entries.map((entry) => `${JSON.stringify(entry)}\n`).join('')

function report(kept: object[], measured: object[]): { page: string; keptAfter: string } {
  const dir = mkdtempSync(join(tmpdir(), 'performance-report-'))
  const out = join(dir, 'performance.md')
  writeFileSync(join(dir, 'performance-results.jsonl'), lines(kept))
  writeFileSync(join(dir, 'results.jsonl'), lines(measured))
  execFileSync(process.execPath, ['--import', 'tsx', script, join(dir, 'results.jsonl'), out], {
    stdio: 'pipe',
  })
  return {
    page: readFileSync(out, 'utf8'),
    keptAfter: readFileSync(join(dir, 'performance-results.jsonl'), 'utf8'),
  }
}

describe('performance report', () => {
  it('replaces the figures of the bench files a run measured and keeps the others with their date', () => {
    const { page, keptAfter } = report(
      [
        comparison('a.bench.ts', 'route A', 0.5, '2026-01-01 10:00'),
        comparison('b.bench.ts', 'route B', 0.7, '2026-01-01 10:00'),
      ],
      [comparison('a.bench.ts', 'route A', 0.9, '2026-02-02 12:00')],
    )
    expect(page).toContain(
      '| route A | cand 90/s | base 100/s | 0.90x | 0.90-0.90 (1) | 2026-02-02 12:00 (1.5) |',
    )
    expect(page).toContain(
      '| route B | cand 70/s | base 100/s | 0.70x | 0.70-0.70 (1) | 2026-01-01 10:00 (1.5) |',
    )
    expect(page).not.toContain('0.50x')
    expect(page).toContain('measured in runs from 2026-01-01 10:00 to 2026-02-02 12:00 UTC')
    // the notes on what each part costs come before the figures, one line per route family
    const notes = page.slice(page.indexOf('## What each part costs'), page.indexOf('## Every comparison'))
    expect(notes).toContain('- **DPoP-bound route.**')
    expect(notes.split('\n').filter((line) => line.startsWith('- **'))).toHaveLength(PART_NOTES.length)
    // what the next partial run starts from: B as it was, A as measured now
    expect(keptAfter.trim().split('\n')).toHaveLength(2)
    expect(keptAfter).toContain('"ratio":0.9')
    expect(keptAfter).toContain('"ratio":0.7')
  }, 30_000)
})
