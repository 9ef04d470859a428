/** A progress bar on stderr: redrawn in place on a terminal, a line per tenth otherwise. */
export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  let lastTenth = -1
  return {
    update(done: number, total: number): void {
      const ratio = total === 0 ? 1 : Math.min(1, done / total)
      const filled = Math.round(ratio * 30)
      const text = `${label} [${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${Math.round(ratio * 100)}% ${done}/${total}`
      if (stream.isTTY) {
        stream.write(`\r${text}`)
        if (ratio === 1) stream.write('\n')
        return
      }
      const tenth = Math.floor(ratio * 10)
      if (tenth !== lastTenth) {
        lastTenth = tenth
        stream.write(`${text}\n`)
      }
    },
  }
}
