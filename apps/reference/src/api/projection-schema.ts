/** JSON Schema (2020-12) of `GET /api/tenants/:tenantId/projection` (MCP `tenant://{tenantId}/projection`). */
export const TENANT_PROJECTION_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'reference://tenant-projection-schema',
  title: 'Tenant projection',
  type: 'object',
  required: ['tenant', 'invoices', 'viewer'],
  additionalProperties: false,
  properties: {
    tenant: {
      type: 'object',
      required: ['id', 'name', 'plan', 'seats'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
        name: { type: 'string' },
        plan: { enum: ['starter', 'team', 'enterprise'] },
        seats: { type: 'integer', minimum: 1 },
      },
    },
    invoices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'month', 'amountCents'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' },
          amountCents: { type: 'integer', minimum: 0 },
        },
      },
    },
    viewer: {
      type: 'object',
      required: ['id', 'roles'],
      properties: { id: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } } },
    },
  },
} as const
