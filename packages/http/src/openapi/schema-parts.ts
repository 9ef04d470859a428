// The small OpenAPI building blocks every generated route table documents itself with.

/** A JSON Schema or OpenAPI object. */
export type Json = Readonly<Record<string, unknown>>

/** A problem+json response with this description. */
export const problemResponse = (description: string): Json => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
})

/** A JSON response with this description and body schema. */
export const jsonResponse = (description: string, schema: Json): Json => ({
  description,
  content: { 'application/json': { schema } },
})

/** A string schema, with a description when given. */
export const stringSchema = (description?: string): Json => ({
  type: 'string',
  ...(description === undefined ? {} : { description }),
})

/** A closed object schema: these properties, these required, nothing else. */
export const objectSchema = (properties: Record<string, Json>, required: readonly string[]): Json => ({
  type: 'object',
  additionalProperties: false,
  required: [...required],
  properties,
})

/** A request body accepted as JSON or as a form, with one schema. */
export const formOrJsonBody = (schema: Json, required = true): Json => ({
  required,
  content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
})

/** An RFC 3339 instant. */
export const instantSchema: Json = { type: 'string', format: 'date-time' }
