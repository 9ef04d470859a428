// The load generator's thread: keep-alive connections to both targets, driven in alternating time slices so
// that both sides of a comparison run under the same machine conditions (see `interleavedLoad`).
import { connect, type Socket } from 'node:net'
import { parentPort, workerData } from 'node:worker_threads'
import type { LoadPlan, LoadResult, RoundResult } from './http-load.js'
import { ResponseFraming } from './response-framing.js'

class Connection {
  readonly #socket: Socket
  readonly #request: Uint8Array
  readonly #framing = new ResponseFraming()
  /** Set once the connection broke, even while its side was idle; the next slice on it then fails. */
  failure: string | undefined
  onResponse: (status: number) => void = () => {}
  onFailure: (reason: string) => void = () => {}

  constructor(socket: Socket, request: Uint8Array) {
    this.#socket = socket
    this.#request = request
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      let statuses: number[]
      try {
        statuses = this.#framing.push(chunk)
      } catch (error) {
        this.#fail((error as Error).message)
        return
      }
      for (const status of statuses) this.onResponse(status)
    })
    socket.on('error', (error) => this.#fail(`socket error: ${error.message}`))
    socket.on('close', () => this.#fail('the server closed a keep-alive connection'))
  }

  #fail(reason: string): void {
    this.failure ??= reason
    this.onFailure(reason)
  }

  send(): void {
    this.#socket.write(this.#request)
  }

  close(): void {
    this.#socket.removeAllListeners('close')
    this.#socket.destroy()
  }
}

function open(plan: LoadPlan, side: 0 | 1): Promise<Connection[]> {
  const target = plan.targets[side]
  return Promise.all(
    Array.from(
      { length: plan.connections },
      () =>
        new Promise<Connection>((resolve, reject) => {
          const socket = connect(target.port, target.host, () => {
            socket.off('error', reject)
            resolve(new Connection(socket, target.request))
          })
          socket.once('error', reject)
        }),
    ),
  )
}

class LoadFailure extends Error {}

/** Every connection sends back to back until `ms` have passed, then finishes its request in flight. */
function slice(pool: readonly Connection[], ms: number): Promise<{ count: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const deadline = start + ms
    let count = 0
    let active = pool.length
    let failed = false
    const fail = (reason: string) => {
      if (failed) return
      failed = true
      reject(new LoadFailure(reason))
    }
    const broken = pool.find((connection) => connection.failure !== undefined)
    if (broken !== undefined) {
      fail(broken.failure as string)
      return
    }
    for (const connection of pool) {
      connection.onFailure = fail
      connection.onResponse = (status) => {
        if (status < 200 || status > 299) {
          fail(`a target answered ${status}`)
          return
        }
        count += 1
        const now = performance.now()
        if (now < deadline && !failed) connection.send()
        else if (--active === 0 && !failed) resolve({ count, ms: now - start })
      }
      connection.send()
    }
  })
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  const pools = [await open(plan, 0), await open(plan, 1)] as const
  try {
    const slicesPerSide = Math.max(1, Math.round(plan.roundMs / plan.sliceMs))
    const warmupSlices = Math.max(1, Math.round(plan.warmupMs / plan.sliceMs))
    for (let index = 0; index < warmupSlices; index += 1) {
      await slice(pools[0], plan.sliceMs)
      await slice(pools[1], plan.sliceMs)
    }
    const rounds: RoundResult[] = []
    for (let round = 0; round < plan.rounds; round += 1) {
      const counts: [number, number] = [0, 0]
      const ms: [number, number] = [0, 0]
      const order = round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)
      for (let index = 0; index < slicesPerSide; index += 1) {
        for (const side of order) {
          const measured = await slice(pools[side], plan.sliceMs)
          counts[side] += measured.count
          ms[side] += measured.ms
        }
      }
      rounds.push({ counts, ms })
    }
    return { rounds }
  } catch (error) {
    if (error instanceof LoadFailure) return { rounds: [], failure: error.message }
    throw error
  } finally {
    for (const connection of [...pools[0], ...pools[1]]) connection.close()
  }
}

const port = parentPort
if (port === null) throw new Error('load-worker runs as a worker thread')
run(workerData as LoadPlan).then(
  (result) => port.postMessage(result),
  (error: unknown) =>
    port.postMessage({ rounds: [], failure: (error as Error).message } satisfies LoadResult),
)
