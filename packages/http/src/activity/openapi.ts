import {
  instantSchema as instant,
  jsonResponse as json,
  objectSchema as object,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const TAGS = ['activity']
const nullable = (description: string) => ({ type: ['string', 'null'], description })
const device = {
  type: ['object', 'null'],
  description: 'Parsed from the `User-Agent` (never the raw header); null when nothing was recognised.',
  properties: {
    browser: nullable('`Chrome 131`, `Firefox 133`.'),
    os: nullable('`Windows 10`, `iOS 18.1`.'),
    platform: nullable('`desktop`, `mobile`, `tablet`, `tv`, `bot`.'),
  },
}
const NOT_FOUND = problem(
  'No session of yours has this id (`activity.session_not_found`): one of another account answers the same.',
)

const item = object(
  {
    id: string(),
    at: instant,
    kind: {
      type: 'string',
      enum: [
        'signed_in',
        'sign_in_failed',
        'signed_out',
        'signed_out_everywhere',
        'password_changed',
        'address_changed',
        'factor_added',
        'factor_removed',
        'identity_linked',
        'identity_unlinked',
        'client_connected',
        'client_disconnected',
        'account_changed',
        'administrative_act',
      ],
    },
    type: string('The log entry type (`login.succeeded`, `passkey.registered`, ...).'),
    method: nullable('`password`, `password_totp`, `passkey`, `totp`, `email_code`, a provider name.'),
    device,
    deviceName: string('`Firefox 133 on Linux`, or `Unknown device`.'),
    address: nullable('The client address, or its keyed hash when the log keeps hashes.'),
    reason: nullable('The reason code (`bad_password`, `logout`).'),
    actorId: nullable('Who acted when it was not the account itself (an administrator).'),
    client: nullable('The connected or disconnected client (MCP / OAuth client).'),
  },
  ['id', 'at', 'kind', 'type', 'method', 'device', 'deviceName', 'address', 'reason', 'actorId', 'client'],
)

const session = object(
  {
    id: string('The opaque session id: `sessions/{id}/sign-out` ends it. Never the session cookie.'),
    current: { type: 'boolean', description: 'The session this request came with ("this device").' },
    device,
    deviceName: string('`Chrome 131 on Windows 10`, or `Unknown device`.'),
    clientAddress: nullable('The address the session was created from.'),
    createdAt: instant,
    lastSeenAt: {
      ...instant,
      description: 'Moved at most once a minute per session (the renewal interval).',
    },
    expiresAt: { ...instant, description: 'When it ends unless used again (idle expiry).' },
  },
  ['id', 'current', 'device', 'deviceName', 'clientAddress', 'createdAt', 'lastSeenAt', 'expiresAt'],
)

/** OpenAPI entries of `activityRouteTable`. */
export const ACTIVITY_ROUTE_DOCS = {
  activity: {
    tags: TAGS,
    summary: 'Your recent activity, newest first',
    description:
      'Sign-ins (method, device, address), failed attempts, password and address changes, factors added or removed, identities linked, clients connected, and acts of administrators on the account. One indexed read of the security log per page.',
    parameters: [
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      {
        name: 'cursor',
        in: 'query',
        required: false,
        description: 'The `nextCursor` of the previous page.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': json(
        'One page; `nextCursor` is null on the last one. A page may hold fewer items than `limit`.',
        object(
          {
            items: { type: 'array', items: item },
            nextCursor: nullable('Send it back as `cursor` for the next page.'),
          },
          ['items', 'nextCursor'],
        ),
      ),
      '400': problem(
        'A malformed `limit` (`activity.invalid_input`) or a cursor this log did not hand out (`security_log.invalid_cursor`).',
      ),
    },
  },
  sessions: {
    tags: TAGS,
    summary: 'Your signed-in sessions: device, "this device", last seen, created',
    responses: {
      '200': json(
        'This device first, then the others by last use.',
        object({ sessions: { type: 'array', items: session } }, ['sessions']),
      ),
    },
  },
  signOut: {
    tags: TAGS,
    summary: 'Signs out one of your sessions',
    description: 'Signing out the session of this request clears its cookie too.',
    responses: {
      '200': json(
        'The session has ended, on every instance within the revocation bound.',
        object({ signedOut: { type: 'boolean', const: true }, current: { type: 'boolean' } }, [
          'signedOut',
          'current',
        ]),
      ),
      '404': NOT_FOUND,
    },
  },
  signOutOthers: {
    tags: TAGS,
    summary: 'Signs out every other session, refresh token and access token of the account',
    description:
      'The security epoch moves, so every other session, token family and access token of the account is refused on every instance; this device gets a fresh session (a new cookie and CSRF token).',
    responses: {
      '200': json(
        'Signed out everywhere else.',
        object({ csrfToken: string('The CSRF token of the fresh session.'), expiresAt: instant }, []),
      ),
    },
  },
} satisfies Record<string, OperationDocumentation>
