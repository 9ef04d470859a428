// Every TypeScript block of the Markdown documentation is a copy of a compiled file under docs/examples/
// (or of a marked region of one; reference-app.md quotes the reference app's own sources the same way). A block says which with a marker on the line just above its fence:
//
//   <!-- example: examples/stores/conformance.test.ts#suites -->
//   ```ts
//
// The path is relative to the Markdown file; `#suites` names the region between `// #region suites` and
// `// #endregion suites` in that file (without it, the block is the whole file); a region opened and closed
// several times shows its segments with a `// ...` line between them. Region marker lines never appear in
// a block, and each segment's common indentation is removed. `checkMarkdown` reports every block that
// has no marker or differs from its file; `syncMarkdown` rewrites the blocks from the files.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

/** A ```ts / ```typescript block of a Markdown file, with the marker above it when there is one. */
export interface TypeScriptBlock {
  /** 1-based line of the opening fence. */
  readonly line: number
  /** Indentation of the fence (a block inside a list item), removed from the body. */
  readonly indent: string
  /** The block's lines without the fence's indentation, from the line after the opening fence. */
  readonly body: string
  /** 0-based index of the first body line and of the closing fence in the file's lines. */
  readonly bodyStart: number
  readonly bodyEnd: number
  readonly marker?: ExampleMarker
}

/** Which file (and region) a block copies. */
export interface ExampleMarker {
  /** As written, relative to the Markdown file. */
  readonly path: string
  readonly region?: string
}

/** One way a Markdown file and the examples disagree. */
export interface DocExampleProblem {
  readonly file: string
  readonly line: number
  readonly message: string
}

const MARKER = /^\s*<!--\s*example:\s*(\S+?)(?:#([\w-]+))?\s*-->\s*$/
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)[^`]*$/
const TYPESCRIPT = new Set(['ts', 'typescript'])
const REGION_LINE = /^\s*\/\/\s*#(?:end)?region\b/

function parseMarker(line: string | undefined): ExampleMarker | undefined {
  const match = line === undefined ? null : MARKER.exec(line)
  if (match === null) return undefined
  const [, path, region] = match as unknown as [string, string, string | undefined]
  return region === undefined ? { path } : { path, region }
}

/** Every TypeScript block of a Markdown text, and the example markers that precede no TypeScript block. */
export function typeScriptBlocks(markdown: string): {
  blocks: TypeScriptBlock[]
  danglingMarkers: number[]
} {
  const lines = markdown.split('\n')
  const blocks: TypeScriptBlock[] = []
  const usedMarkers = new Set<number>()
  const fenced = new Set<number>()
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] as string)
    if (open === null) continue
    const [, indent, fence, language] = open as unknown as [string, string, string, string]
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`)
    let end = index + 1
    while (end < lines.length && !close.test(lines[end] as string)) end++
    for (let inside = index + 1; inside < end; inside++) fenced.add(inside)
    if (TYPESCRIPT.has(language.toLowerCase())) {
      const body = lines
        .slice(index + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
        .join('\n')
      const marker = parseMarker(lines[index - 1])
      if (marker !== undefined) usedMarkers.add(index - 1)
      blocks.push({
        line: index + 1,
        indent,
        body,
        bodyStart: index + 1,
        bodyEnd: end,
        ...(marker === undefined ? {} : { marker }),
      })
    }
    index = end
  }
  const danglingMarkers = lines.flatMap((line, index) =>
    parseMarker(line) !== undefined && !usedMarkers.has(index) && !fenced.has(index) ? [index + 1] : [],
  )
  return { blocks, danglingMarkers }
}

function dedent(lines: readonly string[]): string[] {
  const widths = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0)
  const width = widths.length === 0 ? 0 : Math.min(...widths)
  return lines.map((line) => (line.trim() === '' ? '' : line.slice(width)))
}

function trimEnd(text: string): string {
  return text.replace(/\s+$/, '')
}

/** The line a block shows between two segments of one region. */
export const ELISION = '// ...'

/**
 * The text a block must show: the file, or its region, without region markers and common indentation. A
 * region may be opened and closed several times; its segments are shown one after the other, each
 * dedented on its own, with a `// ...` line between them.
 */
export function exampleText(source: string, region?: string): string {
  const lines = source.split('\n')
  if (region === undefined) return trimEnd(dedent(lines.filter((line) => !REGION_LINE.test(line))).join('\n'))
  const name = region.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const startPattern = new RegExp(`^\\s*//\\s*#region\\s+${name}\\s*$`)
  const endPattern = new RegExp(`^\\s*//\\s*#endregion\\s+${name}\\s*$`)
  const segments: string[] = []
  let start: number | undefined
  lines.forEach((line, index) => {
    if (startPattern.test(line)) {
      if (start !== undefined) throw new Error(`"// #region ${region}" opened twice without an #endregion`)
      start = index
    } else if (endPattern.test(line)) {
      if (start === undefined) throw new Error(`"// #endregion ${region}" without its #region`)
      const segment = lines.slice(start + 1, index).filter((inner) => !REGION_LINE.test(inner))
      segments.push(trimEnd(dedent(segment).join('\n')).replace(/^\n+/, ''))
      start = undefined
    }
  })
  if (start !== undefined) throw new Error(`no "// #endregion ${region}" after its #region`)
  if (segments.length === 0) throw new Error(`no "// #region ${region}"`)
  return segments.join(`\n${ELISION}\n`)
}

/**
 * Resolves a marker's file, which must be a .ts file under one of the source folders: docs/examples/, or
 * the sources of an application the repository compiles and tests (the reference app, the examples),
 * never inside installed packages (`node_modules`) or a build's output (`.next`).
 */
function markerFile(markdownFile: string, marker: ExampleMarker, sourceDirs: readonly string[]): string {
  const file = resolve(dirname(markdownFile), marker.path)
  const inside = sourceDirs.some((dir) => {
    const path = relative(dir, file)
    const parts = path.split(sep)
    return (
      !path.startsWith('..') &&
      !isAbsolute(path) &&
      !parts.includes('node_modules') &&
      !parts.includes('.next')
    )
  })
  if (!inside) throw new Error(`${marker.path} is not under ${sourceDirs.join(' or ')}`)
  if (!file.endsWith('.ts')) throw new Error(`${marker.path} is not a .ts file`)
  if (!existsSync(file)) throw new Error(`${marker.path} does not exist`)
  return file
}

function expectedBody(markdownFile: string, marker: ExampleMarker, sourceDirs: readonly string[]): string {
  const file = markerFile(markdownFile, marker, sourceDirs)
  try {
    return exampleText(readFileSync(file, 'utf8'), marker.region)
  } catch (error) {
    throw new Error(`${marker.path}: ${(error as Error).message}`)
  }
}

function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n')
  const e = expected.split('\n')
  const index = a.findIndex((line, i) => line !== e[i])
  const at = index === -1 ? a.length : index
  return `block line ${at + 1} is ${JSON.stringify(a[at] ?? '(end of block)')}, the example has ${JSON.stringify(e[at] ?? '(end of example)')}`
}

const HOW_TO_FIX =
  'put the code in a file under docs/examples/ (or a `// #region name` of one), mark the block with ' +
  '`<!-- example: examples/<topic>/<file>.ts#name -->` on the line above its fence, and run `pnpm docs:examples:sync`'

/** Every disagreement between a Markdown file's TypeScript blocks and the example files they name. */
export function checkMarkdown(
  markdownFile: string,
  markdown: string,
  sourceDirs: readonly string[],
): DocExampleProblem[] {
  const { blocks, danglingMarkers } = typeScriptBlocks(markdown)
  const problems: DocExampleProblem[] = danglingMarkers.map((line) => ({
    file: markdownFile,
    line,
    message: 'an example marker that is not directly above a ```ts fence',
  }))
  for (const block of blocks) {
    if (block.marker === undefined) {
      problems.push({
        file: markdownFile,
        line: block.line,
        message: `a TypeScript block with no marker: ${HOW_TO_FIX}`,
      })
      continue
    }
    try {
      const expected = expectedBody(markdownFile, block.marker, sourceDirs)
      if (trimEnd(block.body) !== expected) {
        problems.push({
          file: markdownFile,
          line: block.line,
          message: `differs from ${block.marker.path}${block.marker.region === undefined ? '' : `#${block.marker.region}`} (${firstDifference(trimEnd(block.body), expected)}); run \`pnpm docs:examples:sync\` or fix the example`,
        })
      }
    } catch (error) {
      problems.push({ file: markdownFile, line: block.line, message: (error as Error).message })
    }
  }
  return problems
}

/**
 * The Markdown text with every marked TypeScript block replaced by its example; unmarked blocks and blocks
 * whose file or region is missing are kept as they are.
 */
export function syncMarkdown(markdownFile: string, markdown: string, sourceDirs: readonly string[]): string {
  const lines = markdown.split('\n')
  const { blocks } = typeScriptBlocks(markdown)
  for (const block of [...blocks].reverse()) {
    if (block.marker === undefined) continue
    let expected: string
    try {
      expected = expectedBody(markdownFile, block.marker, sourceDirs)
    } catch {
      continue // checkMarkdown reports it
    }
    const body = expected.split('\n').map((line) => (line === '' ? '' : `${block.indent}${line}`))
    lines.splice(block.bodyStart, block.bodyEnd - block.bodyStart, ...body)
  }
  return lines.join('\n')
}
