// Every secured route of the application, declared in one module: the catch-all route handler imports it,
// so the MCP endpoint knows every published route before the first request.
import { anyOf, required } from '@portcullis/core/policy'
import { NOTES, noteById } from './notes'
import { local, portcullis } from './portcullis'

// #region me
/** GET /api/me: the signed-in account. `security` is the verified context; no session, no call. */
export const me = portcullis.route('GET', '/api/me', { auth: required() }, async (_request, { security }) => {
  const principal = security.principal
  if (principal === null) throw new Error('required() lets no anonymous request through')
  return Response.json({ account: principal.id, email: await local.usernameOf(principal.id) })
})
// #endregion me

// #region notes
// Published to MCP clients as example://notes and the template example://notes/{id}; a read runs the
// route in-process with the caller's credentials, so its policy decides exactly as for a direct request.
const readers = anyOf('session', 'api-key')

export const notes = portcullis.route(
  'GET',
  '/api/notes',
  { auth: readers, mcpResource: 'notes', mcpResourceMimeType: 'application/json' },
  () => Response.json(NOTES.map(({ id, title }) => ({ id, title }))),
)

export const note = portcullis.route(
  'GET',
  '/api/notes/:id',
  {
    auth: readers,
    mcpResource: 'note',
    mcpResourceTemplate: 'example://notes/{id}',
    mcpResourceMimeType: 'application/json',
    mcpResourceDescription: 'One note, by id',
  },
  (_request, { params }) => {
    const found = params.id === undefined ? undefined : noteById(params.id)
    return found === undefined
      ? Response.json(
          { type: 'about:blank', title: 'Not Found', status: 404, code: 'note.not_found' },
          { status: 404, headers: { 'content-type': 'application/problem+json' } },
        )
      : Response.json(found)
  },
)
// #endregion notes
