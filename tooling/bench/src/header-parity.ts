import type { HttpCase } from './http-load.js'

/**
 * Headers that say nothing about what a security-header middleware sends: framing, time, the body's own
 * description. Everything else must be the same on both sides of a header-middleware comparison.
 */
const FRAMING: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'content-type',
  'date',
  'etag',
  'keep-alive',
  'transfer-encoding',
])

/** A CSP compared as its directives (`a;b` and `a; b` are one policy). */
function normalized(name: string, value: string): string {
  if (name !== 'content-security-policy') return value
  return value
    .split(';')
    .map((directive) => directive.trim().replace(/\s+/g, ' '))
    .filter((directive) => directive !== '')
    .join('; ')
}

/** The headers of one answer to `target`, lower-case names, framing left out. */
export async function answeredHeaders(target: HttpCase): Promise<ReadonlyMap<string, string>> {
  const answer = await fetch(target.url, {
    method: target.method ?? 'GET',
    ...(target.headers === undefined ? {} : { headers: target.headers }),
    ...(target.body === undefined ? {} : { body: target.body }),
  })
  await answer.arrayBuffer()
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(`${target.name}: answered ${answer.status}, not a success`)
  }
  const headers = new Map<string, string>()
  answer.headers.forEach((value, name) => {
    if (!FRAMING.has(name)) headers.set(name, normalized(name, value))
  })
  return headers
}

/** Every header one side sends and the other does not, or sends with another value. */
export function headerDifferences(
  left: ReadonlyMap<string, string>,
  right: ReadonlyMap<string, string>,
): string[] {
  const names = [...new Set([...left.keys(), ...right.keys()])].sort()
  const differences: string[] = []
  for (const name of names) {
    const a = left.get(name)
    const b = right.get(name)
    if (a !== b) differences.push(`${name}: ${a ?? '(absent)'} vs ${b ?? '(absent)'}`)
  }
  return differences
}

/**
 * Refuses a header-middleware comparison whose two sides do not send the same headers (framing left out,
 * a CSP compared by its directives): a baseline that sends fewer bytes is not the one a user runs.
 */
export async function assertSameHeaders(baseline: HttpCase, candidate: HttpCase): Promise<void> {
  const [left, right] = await Promise.all([answeredHeaders(baseline), answeredHeaders(candidate)])
  const differences = headerDifferences(left, right)
  if (differences.length > 0) {
    throw new Error(
      `${baseline.name} and ${candidate.name} send different headers: ${differences.join('; ')}`,
    )
  }
}
