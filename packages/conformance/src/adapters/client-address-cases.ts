// Per-address limits as a client meets them: the adapter hands core the client's address (the socket, and
// X-Forwarded-For behind a trusted proxy), so the per-address sign-in limit is reached; an IPv6 client
// rotating through its /64 stays in one budget; an adapter that cannot see the client fails closed.
//
// How the suite presents a client: it connects from 127.0.0.1 (a real socket), and the scenario trusts
// the loopback addresses as proxies, so a request's `X-Forwarded-For` names the client (documentation
// addresses, RFC 5737 and RFC 3849) while the adapter still has to pass the socket for that trust.
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { accountWorld, SAME_ORIGIN } from './account-world.js'
import { type Answer, call } from './http-client.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

/** The per-address limit of the client-address world. */
export const PER_ADDRESS_LIMIT = 3

const json = { 'content-type': 'application/json' }

async function limitedWorld(fixture: AdapterFixture) {
  const app = await fixture.start(
    await accountWorld({
      rateLimit: {
        perAddress: { limit: PER_ADDRESS_LIMIT, windowSeconds: 600 },
        perAccount: { limit: 1000, windowSeconds: 600 },
      },
      trustedProxies: ['127.0.0.1', '::1'],
    }),
  )
  let attempt = 0
  /** One failed sign-in (a fresh username each time, so only the per-address limit can refuse it). */
  const signIn = (forwardedFor?: string): Promise<Answer> => {
    attempt += 1
    const body = JSON.stringify({ username: `nobody-${attempt}`, password: 'not the password' })
    const headers: Record<string, string> = { ...SAME_ORIGIN, ...json }
    if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor
    return call(app.url, '/auth/login', { method: 'POST', headers, body })
  }
  return { signIn }
}

function codeOf(answer: Answer): string | undefined {
  try {
    return (answer.json() as { code?: string }).code
  } catch {
    return undefined
  }
}

/** The attempts of one client: the first `PER_ADDRESS_LIMIT` are 401, the next is 429 with Retry-After. */
function checkLimited(check: Check, answers: readonly Answer[], who: string): void {
  const statuses = answers.map((answer) => answer.status)
  const expected = [...new Array<number>(PER_ADDRESS_LIMIT).fill(401), 429]
  check(
    JSON.stringify(statuses) === JSON.stringify(expected),
    `${who}: ${PER_ADDRESS_LIMIT + 1} failed sign-ins answered ${statuses.join(', ')}, expected ${expected.join(', ')}`,
  )
  const last = answers.at(-1)
  if (last === undefined) return
  check(codeOf(last) === 'local.rate_limited', `${who}: the refusal's code is ${codeOf(last)}`)
  const retryAfter = last.headers['retry-after'] ?? ''
  check(
    /^[1-9]\d*$/.test(retryAfter) && Number(retryAfter) <= 600,
    `${who}: Retry-After ${JSON.stringify(retryAfter)}`,
  )
}

async function attempts(
  signIn: (forwardedFor?: string) => Promise<Answer>,
  clients: readonly (string | undefined)[],
) {
  const answers: Answer[] = []
  for (const client of clients) answers.push(await signIn(client))
  return answers
}

const repeat = <T>(value: T): T[] => new Array<T>(PER_ADDRESS_LIMIT + 1).fill(value)

export const clientAddressCases: readonly Case[] = [
  conformanceCase(
    'adapter.client-address-limit',
    'the per-address sign-in limit counts the client: its socket, or behind a trusted proxy the forwarded client; 429 with Retry-After over it',
    async (fixture, check) => {
      const { signIn } = await limitedWorld(fixture)
      // the socket itself (127.0.0.1, no X-Forwarded-For)
      checkLimited(check, await attempts(signIn, repeat(undefined)), 'the socket 127.0.0.1')
      // forwarded clients, each with its own budget: the adapter passed the header and the trusted socket
      checkLimited(check, await attempts(signIn, repeat('203.0.113.10')), 'client 203.0.113.10')
      const other = await signIn('198.51.100.20')
      check(other.status === 401, `another client was refused with the first one: ${other.status}`)
      // an IPv4-mapped IPv6 address is the IPv4 client
      const mapped = await signIn('::ffff:203.0.113.10')
      check(mapped.status === 429, `::ffff:203.0.113.10 got a fresh budget: ${mapped.status}`)
      // a spoofed leftmost entry does not make a new client
      const spoofed = await signIn('192.0.2.99, 203.0.113.10')
      check(
        spoofed.status === 429,
        `a spoofed leftmost X-Forwarded-For entry got a fresh budget: ${spoofed.status}`,
      )
    },
  ),
  conformanceCase(
    'adapter.client-address-ipv6-prefix',
    'IPv6 clients count by /64: fresh addresses of one /64 share one budget, another /64 has its own',
    async (fixture, check) => {
      const { signIn } = await limitedWorld(fixture)
      const rotating = [
        '2001:db8:1:2::a1',
        '2001:db8:1:2:ffff:ffff:ffff:fffe',
        '2001:db8:1:2:1234:5678:9abc:def0',
        '2001:db8:1:2::4',
      ]
      checkLimited(check, await attempts(signIn, rotating), 'four addresses of 2001:db8:1:2::/64')
      const neighbour = await signIn('2001:db8:1:3::a1')
      check(
        neighbour.status === 401,
        `2001:db8:1:3::/64 shared the budget of another /64: ${neighbour.status}`,
      )
      const bracketed = await signIn('[2001:db8:1:2::99]:443')
      check(
        bracketed.status === 429,
        `a bracketed address with a port got a fresh budget: ${bracketed.status}`,
      )
    },
  ),
]

export const unknownClientAddressCases: readonly Case[] = [
  conformanceCase(
    'adapter.client-address-unknown',
    'an adapter that cannot see the client fails closed: every request counts under one shared key, never skipped',
    async (fixture, check) => {
      const { signIn } = await limitedWorld(fixture)
      const clients = ['203.0.113.10', '198.51.100.20', undefined, '2001:db8:1:2::1']
      checkLimited(check, await attempts(signIn, clients), 'requests whose client the adapter cannot see')
      const again = await signIn('192.0.2.1')
      check(again.status === 429, `a further request was not limited: ${again.status}`)
    },
  ),
]
