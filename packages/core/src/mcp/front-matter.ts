/**
 * Reads the top-level scalar keys of a YAML front matter block (`---` ... `---` at the start of a
 * file): plain, single- and double-quoted scalars, and `|` / `>` block scalars. Nested mappings and
 * lists are skipped. Returns undefined when the text has no front matter block.
 */
export function parseFrontMatter(text: string): Readonly<Record<string, string>> | undefined {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/)
  if (lines[0]?.trim() !== '---') return undefined
  const end = lines.findIndex((line, index) => index > 0 && (line.trim() === '---' || line.trim() === '...'))
  if (end === -1) return undefined
  const body = lines.slice(1, end)
  const fields: Record<string, string> = {}
  let index = 0
  while (index < body.length) {
    const line = body[index] as string
    index += 1
    const match = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$/.exec(line)
    if (match === null) continue
    const key = match[1] as string
    const raw = (match[2] ?? '').trim()
    if (/^[|>][+-]?$/.test(raw)) {
      const block: string[] = []
      while (
        index < body.length &&
        (/^\s+\S/.test(body[index] as string) || (body[index] as string).trim() === '')
      ) {
        block.push((body[index] as string).trim())
        index += 1
      }
      const joined = raw.startsWith('|') ? block.join('\n') : block.filter((part) => part !== '').join(' ')
      fields[key] = joined.trim()
      continue
    }
    fields[key] = scalar(raw)
  }
  return fields
}

function scalar(raw: string): string {
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    try {
      return String(JSON.parse(raw))
    } catch {
      return raw.slice(1, -1)
    }
  }
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'"))
    return raw.slice(1, -1).replaceAll("''", "'")
  const comment = raw.search(/\s#/)
  return (comment === -1 ? raw : raw.slice(0, comment)).trim()
}
