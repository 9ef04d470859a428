import { createSocket, type RemoteInfo } from 'node:dgram'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import dnsPacket from 'dns-packet'

/** How the server answers a name it is told to fail: a DNS error code, or no answer at all. */
export type DnsFailure = 'SERVFAIL' | 'REFUSED' | 'drop'

/** One question the server received. */
export interface DnsQuery {
  readonly name: string
  readonly type: string
}

/** A DNS server on a loopback UDP port answering the TXT records a test sets (see `startTestDnsServer`). */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`: what `systemDnsTxtResolver({ servers })` takes. */
  readonly server: string
  readonly port: number
  /**
   * The TXT records of `name` (case-insensitive, no trailing dot), replacing earlier ones. A record is a
   * string (split into 255-octet pieces) or its pieces.
   */
  setTxt(name: string, records: readonly (string | readonly string[])[]): void
  /** Forgets `name`: it no longer exists (NXDOMAIN). */
  remove(name: string): void
  /** From now on queries of `name` get this failure; `undefined` answers normally again. */
  fail(name: string, failure: DnsFailure | undefined): void
  /** The questions received so far, oldest first. */
  queries(): readonly DnsQuery[]
  close(): Promise<void>
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const
const MAX_PIECE = 255

function piecesOf(record: string | readonly string[]): Buffer[] {
  if (typeof record !== 'string') return record.map((piece) => Buffer.from(piece, 'utf8'))
  const bytes = Buffer.from(record, 'utf8')
  const pieces: Buffer[] = []
  for (let start = 0; start < bytes.length; start += MAX_PIECE)
    pieces.push(bytes.subarray(start, start + MAX_PIECE))
  return pieces.length === 0 ? [Buffer.alloc(0)] : pieces
}

const keyOf = (name: string): string => name.toLowerCase().replace(/\.$/, '')

/**
 * A real DNS server for tests: `dns-packet` over `node:dgram`, bound to 127.0.0.1 on a free port. A
 * name with records answers its TXT records (other types: no data); a name it was not given does not
 * exist (NXDOMAIN); a name told to fail answers SERVFAIL or REFUSED, or nothing (the client times out).
 * Answers are authoritative with a TTL of 0, so nothing is cached between a test's steps.
 */
export async function startTestDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, Buffer[][]>()
  const failures = new Map<string, DnsFailure>()
  const received: DnsQuery[] = []
  const socket = createSocket('udp4')

  const answer = (message: Buffer, peer: RemoteInfo): void => {
    let query: dnsPacket.Packet
    try {
      query = dnsPacket.decode(message)
    } catch {
      return
    }
    const question = query.questions?.[0]
    if (query.type !== 'query' || question === undefined) return
    received.push({ name: question.name, type: question.type })
    const key = keyOf(question.name)
    const failure = failures.get(key)
    if (failure === 'drop') return
    const stored = records.get(key)
    let rcode: number = RCODE.NOERROR
    if (failure !== undefined) rcode = RCODE[failure]
    else if (stored === undefined) rcode = RCODE.NXDOMAIN
    const answers: dnsPacket.Answer[] =
      rcode === RCODE.NOERROR && question.type === 'TXT'
        ? (stored ?? []).map((data) => ({ type: 'TXT', class: 'IN', name: question.name, ttl: 0, data }))
        : []
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) | rcode,
      questions: query.questions ?? [],
      answers,
    })
    socket.send(response, peer.port, peer.address)
  }

  socket.on('message', answer)
  socket.bind(0, '127.0.0.1')
  await once(socket, 'listening')
  const { port } = socket.address() as AddressInfo
  let closed: Promise<void> | undefined

  return {
    server: `127.0.0.1:${port}`,
    port,
    setTxt(name, given) {
      records.set(keyOf(name), given.map(piecesOf))
    },
    remove(name) {
      records.delete(keyOf(name))
    },
    fail(name, failure) {
      if (failure === undefined) failures.delete(keyOf(name))
      else failures.set(keyOf(name), failure)
    },
    queries: () => [...received],
    close() {
      closed ??= new Promise<void>((resolve) => socket.close(() => resolve()))
      return closed
    },
  }
}
