/**
 * A running count on stderr when the total is not known up front: redrawn in place on a terminal, at
 * most a line a second otherwise, and always the final count.
 */
export function progressCounter(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
  clock: () => number = Date.now,
) {
  let lastLine = Number.NEGATIVE_INFINITY
  const line = (count: number) => `${label}: ${count} envelope(s)`
  return {
    update(count: number): void {
      if (stream.isTTY) {
        stream.write(`\r${line(count)}`)
        return
      }
      if (clock() - lastLine < 1000) return
      lastLine = clock()
      stream.write(`${line(count)}\n`)
    },
    done(count: number): void {
      stream.write(stream.isTTY ? `\r${line(count)}, done\n` : `${line(count)}, done\n`)
    },
  }
}
