import type { LoadSample } from './mixed-load.js'

const WIDTH = 720
const HEIGHT = 180
const PAD = 40

/** One line chart of `values` over time, scaled to its own maximum, with a title and the maximum. */
function chart(
  samples: readonly LoadSample[],
  values: readonly number[],
  title: string,
  unit: string,
  top: number,
) {
  const max = Math.max(1e-9, ...values)
  const last = samples.at(-1)?.atMs ?? 1
  const points = samples
    .map((sample, index) => {
      const x = PAD + (sample.atMs / last) * (WIDTH - 2 * PAD)
      const y = top + HEIGHT - PAD / 2 - ((values[index] ?? 0) / max) * (HEIGHT - PAD)
      return `${x.toFixed(1)},${y.toFixed(1)}`
    })
    .join(' ')
  return [
    `<text x="${PAD}" y="${top + 14}" font-size="13">${title} (max ${max.toFixed(1)} ${unit})</text>`,
    `<line x1="${PAD}" y1="${top + HEIGHT - PAD / 2}" x2="${WIDTH - PAD}" y2="${top + HEIGHT - PAD / 2}" stroke="#999"/>`,
    `<polyline fill="none" stroke="#1f5fa8" stroke-width="2" points="${points}"/>`,
  ].join('\n')
}

/** Throughput, p99 latency and heap over time, as one self-contained SVG (no script, no external font). */
export function soakSvg(samples: readonly LoadSample[]): string {
  const charts = [
    chart(
      samples,
      samples.map((s) => s.requestsPerSecond),
      'Requests per second',
      '/s',
      0,
    ),
    chart(
      samples,
      samples.map((s) => s.p99Ms),
      'p99 latency',
      'ms',
      HEIGHT,
    ),
    chart(
      samples,
      samples.map((s) => s.heapUsedMiB),
      'Heap used',
      'MiB',
      2 * HEIGHT,
    ),
  ]
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${3 * HEIGHT}" font-family="sans-serif">`,
    '<rect width="100%" height="100%" fill="#fff"/>',
    ...charts,
    '</svg>',
    '',
  ].join('\n')
}
