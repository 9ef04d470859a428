import {
  formOrJsonBody as body,
  instantSchema as instant,
  objectSchema as object,
  jsonResponse as ok,
  problemResponse as problem,
  stringSchema as string,
} from '../openapi/schema-parts.js'
import type { OperationDocumentation } from '../routing/route-options.js'

const TAGS = ['organization domains']
const ENROLLMENT = {
  type: 'string',
  enum: ['manual-invitation', 'automatic-invitation', 'automatic-suggestion'],
  description:
    'What the verified domain does for people with a verified address at it: nothing (manual-invitation), ' +
    'offer to join (automatic-invitation) or show the organization to ask to join (automatic-suggestion).',
}
const CLAIM = object(
  {
    id: string('The claim id: `domains/{domainId}/...` acts on it.'),
    domain: string('Lower-case, IDNA-encoded.'),
    enrollment: ENROLLMENT,
    createdAt: instant,
    verifiedAt: { ...instant, type: ['string', 'null'] },
    recordName: string('Where to publish the TXT record: `_portcullis-challenge.<domain>`.'),
    recordValue: string('The TXT record text: `portcullis-domain-verification=<token>`.'),
  },
  ['id', 'domain', 'enrollment', 'createdAt', 'verifiedAt', 'recordName', 'recordValue'],
)
const NOT_FOUND = problem(
  "No such organization among the caller's, or no such claim of it (`organizations.not_found`, `organization_domains.not_found`).",
)
const FORBIDDEN = problem(
  "The caller's role in the organization may not manage its domains (`organization_domains.forbidden`).",
)
const BAD_REQUEST = problem('Malformed input, or a domain no organization can own (nothing was written).')
const UNAVAILABLE = problem('DNS or a store is unavailable; see Retry-After. Nothing was changed.')
const common = { '401': problem('Not signed in.'), '403': FORBIDDEN, '404': NOT_FOUND, '503': UNAVAILABLE }

export const ORGANIZATION_DOMAIN_ROUTE_DOCS = {
  list: {
    tags: TAGS,
    summary: "The organization's domain claims, oldest first, each with its TXT record",
    responses: {
      '200': ok('The claims.', object({ domains: { type: 'array', items: CLAIM } }, ['domains'])),
      ...common,
    },
  },
  claim: {
    tags: TAGS,
    summary: 'Claim a domain: answers the TXT record that proves it',
    requestBody: body(object({ domain: string(), enrollment: ENROLLMENT }, ['domain'])),
    responses: {
      '201': ok("The new claim (or the organization's existing claim of the domain).", CLAIM),
      '400': problem(
        'Malformed input, a domain no organization can own (`organization_domains.invalid_domain`) or a free-mail domain (`organization_domains.free_mail`).',
      ),
      '409': problem(
        'Another organization holds the domain verified (`organization_domains.taken`), or the organization claims as many domains as it may (`organization_domains.limit_reached`).',
      ),
      ...common,
    },
  },
  verify: {
    tags: TAGS,
    summary: "Look the TXT record up and mark the claim verified when it carries this claim's token",
    responses: {
      '200': ok('The verified claim.', CLAIM),
      '409': problem(
        "No verification record (`organization_domains.record_missing`), another claim's record (`organization_domains.record_mismatch`), or the domain is verified by another organization (`organization_domains.taken`).",
      ),
      ...common,
    },
  },
  enrollment: {
    tags: TAGS,
    summary: 'Set what the verified domain does for people with a verified address at it',
    requestBody: body(object({ enrollment: ENROLLMENT }, ['enrollment'])),
    responses: { '200': ok('The claim.', CLAIM), '400': BAD_REQUEST, ...common },
  },
  remove: {
    tags: TAGS,
    summary: 'Remove the claim (a verified domain is freed)',
    responses: { '204': { description: 'Removed.' }, ...common },
  },
  offers: {
    tags: TAGS,
    summary: 'The organizations the caller may join or ask to join through a verified address',
    responses: {
      '200': ok(
        'One entry per organization and domain in a non-manual mode.',
        object(
          {
            offers: {
              type: 'array',
              items: object(
                { organizationId: string(), domainId: string(), domain: string(), mode: ENROLLMENT },
                ['organizationId', 'domainId', 'domain', 'mode'],
              ),
            },
          },
          ['offers'],
        ),
      ),
      '401': problem('Not signed in.'),
      '503': UNAVAILABLE,
    },
  },
} satisfies Record<string, OperationDocumentation>
