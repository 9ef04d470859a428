import { Resolver } from 'node:dns/promises'
import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { OrganizationDomainError, OrganizationDomainErrorCodes } from './errors.js'

/**
 * Looks up TXT records: each record as the character strings it is made of (a record longer than 255
 * octets arrives in pieces). A name with no TXT record, or that does not exist, answers an empty list;
 * a resolver that cannot answer (timeout, refused, SERVFAIL) throws `organization_domains.unavailable`.
 */
export interface DnsTxtResolver {
  resolveTxt(name: string): Promise<readonly (readonly string[])[]>
}

export interface SystemDnsTxtResolverOptions {
  /**
   * The DNS servers asked (`'192.0.2.53'`, `'[2001:db8::53]:5353'`, `'127.0.0.1:5353'`); the system's
   * resolvers when omitted. A recursive resolver that validates DNSSEC is the better choice in production.
   */
  readonly servers?: readonly string[]
  /** Milliseconds before one try gives up (100 to 30 000). Default 2 000. */
  readonly timeoutMs?: number
  /** Tries per server before the lookup fails (1 to 5). Default 2. */
  readonly tries?: number
}

const OPTIONS: OptionsShape<SystemDnsTxtResolverOptions> = {
  servers: { kind: 'array', elements: { kind: 'string' } },
  timeoutMs: { kind: 'number', check: integerBetween(100, 30_000) },
  tries: { kind: 'number', check: integerBetween(1, 5) },
}

/** A dotted-quad IPv4 address: four decimal parts 0 to 255, no leading zeros. */
function isIPv4(text: string): boolean {
  return (
    /^\d{1,3}(\.\d{1,3}){3}$/.test(text) &&
    text.split('.').every((part) => Number(part) <= 255 && (part === '0' || !part.startsWith('0')))
  )
}

/** An IPv6 address (hex groups, `::`, an embedded IPv4 tail), as the URL parser reads one; no zone. */
function isIPv6(text: string): boolean {
  return /^[\da-f:.]+$/i.test(text) && text.includes(':') && URL.canParse(`http://[${text}]/`)
}

/**
 * Why a `servers` entry cannot be asked, or undefined: an IPv4 address with an optional `:port`, an IPv6
 * address, or one in brackets with an optional `:port`; a port is 1 to 65535 (`node:dns` would wrap a
 * larger one, and port 0 aborts the process).
 */
function serverProblem(entry: string): string | undefined {
  let port: string | undefined
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry)
  if (bracketed !== null) {
    if (!isIPv6(bracketed[1] ?? '')) return 'is not an IPv6 address in brackets'
    port = bracketed[2]
  } else if (!isIPv6(entry)) {
    const colon = entry.lastIndexOf(':')
    if (!isIPv4(colon < 0 ? entry : entry.slice(0, colon))) return 'is not an IP address'
    port = colon < 0 ? undefined : entry.slice(colon + 1)
  }
  if (port === undefined) return undefined
  const number = /^\d{1,5}$/.test(port) ? Number(port) : 0
  return number >= 1 && number <= 65_535 ? undefined : 'has a port outside 1 to 65535'
}

/** What answers "no such record": the name has no TXT record (NODATA) or does not exist (NXDOMAIN). */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND'])

/**
 * The default `DnsTxtResolver`: a `node:dns/promises` `Resolver` of its own (never the process-wide
 * one), on `servers` when given, with a bounded timeout and number of tries. No answer in time, a
 * refused connection or a server failure is `organization_domains.unavailable` with a retry hint.
 */
export function systemDnsTxtResolver(options: SystemDnsTxtResolverOptions = {}): DnsTxtResolver {
  readOptions(options, 'systemDnsTxtResolver', OPTIONS)
  const timeout = options.timeoutMs ?? 2_000
  const tries = options.tries ?? 2
  const dns = new Resolver({ timeout, tries })
  if (options.servers !== undefined) {
    for (const entry of options.servers) {
      const problem = serverProblem(entry)
      if (problem !== undefined) {
        throw new ConfigurationError(
          'configuration.invalid_option',
          `servers: ${JSON.stringify(entry)} ${problem} (an IP address, with an optional port)`,
          { option: 'systemDnsTxtResolver.servers' },
        )
      }
    }
    try {
      dns.setServers([...options.servers])
    } catch (error) {
      throw new ConfigurationError(
        'configuration.invalid_option',
        'servers must be IP addresses, with an optional port',
        {
          option: 'systemDnsTxtResolver.servers',
          cause: error,
        },
      )
    }
  }
  return {
    async resolveTxt(name: string): Promise<readonly (readonly string[])[]> {
      try {
        return await dns.resolveTxt(name)
      } catch (error) {
        const code = (error as { code?: unknown }).code
        if (typeof code === 'string' && ABSENT.has(code)) return []
        throw new OrganizationDomainError(
          OrganizationDomainErrorCodes.unavailable,
          'the DNS lookup of the challenge record failed',
          { cause: error, retryAfterSeconds: 30 },
        )
      }
    },
  }
}
