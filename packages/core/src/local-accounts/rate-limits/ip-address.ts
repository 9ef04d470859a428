// IP address parsing without `node:net` (core imports no network module): textual IPv4 and IPv6 to bytes,
// IPv4-mapped IPv6 folded to IPv4, and RFC 5952 canonical text.

/** An address as 4 (IPv4) or 16 (IPv6) bytes. IPv4-mapped IPv6 addresses are always stored as IPv4. */
export type IpBytes = Uint8Array

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/

function parseIPv4(text: string): IpBytes | undefined {
  const match = IPV4.exec(text)
  if (match === null) return undefined
  const bytes = new Uint8Array(4)
  for (let index = 0; index < 4; index++) {
    const part = match[index + 1] as string
    // A leading zero is refused: some parsers read "010" as octal, so its meaning is ambiguous.
    if (part.length > 1 && part.startsWith('0')) return undefined
    const value = Number(part)
    if (value > 255) return undefined
    bytes[index] = value
  }
  return bytes
}

function parseGroups(text: string, allowTrailingIPv4: boolean): number[] | undefined {
  if (text === '') return []
  const parts = text.split(':')
  const groups: number[] = []
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as string
    if (allowTrailingIPv4 && index === parts.length - 1 && part.includes('.')) {
      const v4 = parseIPv4(part)
      if (v4 === undefined) return undefined
      groups.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number))
    } else if (HEX_GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16))
    } else {
      return undefined
    }
  }
  return groups
}

function parseIPv6(text: string): IpBytes | undefined {
  if (text.length > 45) return undefined
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  let groups: number[]
  if (halves.length === 2) {
    const head = parseGroups(halves[0] as string, false)
    const tail = parseGroups(halves[1] as string, true)
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]
  } else {
    const all = parseGroups(text, true)
    if (all === undefined || all.length !== 8) return undefined
    groups = all
  }
  const bytes = new Uint8Array(16)
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8
    bytes[index * 2 + 1] = group & 0xff
  })
  return foldMapped(bytes)
}

/** `::ffff:a.b.c.d` (IPv4-mapped) becomes the 4-byte IPv4 address; everything else is unchanged. */
function foldMapped(bytes: IpBytes): IpBytes {
  if (bytes.length !== 16) return bytes
  for (let index = 0; index < 10; index++) if (bytes[index] !== 0) return bytes
  if (bytes[10] !== 0xff || bytes[11] !== 0xff) return bytes
  return bytes.slice(12)
}

/**
 * Parses a bare IPv4 address (dotted decimal, no leading zeros) or IPv6 address (no zone, no brackets).
 * IPv4-mapped IPv6 addresses come back as IPv4. `undefined` for anything else.
 */
export function parseIpAddress(text: string): IpBytes | undefined {
  if (text.includes(':')) return parseIPv6(text)
  return parseIPv4(text)
}

/** Canonical text: dotted decimal for IPv4, RFC 5952 for IPv6 (lower case, longest zero run compressed). */
export function formatIpAddress(bytes: IpBytes): string {
  if (bytes.length === 4) return bytes.join('.')
  const groups: number[] = []
  for (let index = 0; index < 16; index += 2)
    groups.push(((bytes[index] as number) << 8) | (bytes[index + 1] as number))
  let bestStart = -1
  let bestLength = 0
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start++
      continue
    }
    let end = start
    while (end < 8 && groups[end] === 0) end++
    if (end - start > bestLength) {
      bestStart = start
      bestLength = end - start
    }
    start = end
  }
  const hex = groups.map((group) => group.toString(16))
  if (bestLength < 2) return hex.join(':')
  const head = hex.slice(0, bestStart).join(':')
  const tail = hex.slice(bestStart + bestLength).join(':')
  return `${head}::${tail}`
}

/** Whether the first `prefix` bits of `address` equal those of `network` (same family). */
export function inPrefix(address: IpBytes, network: IpBytes, prefix: number): boolean {
  if (address.length !== network.length) return false
  const whole = prefix >> 3
  for (let index = 0; index < whole; index++) if (address[index] !== network[index]) return false
  const rest = prefix & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return ((address[whole] as number) & mask) === ((network[whole] as number) & mask)
}
