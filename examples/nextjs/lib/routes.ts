// Every secured route of the application, declared in one module: the catch-all route handler imports it,
// so the MCP endpoint knows every published route before the first request.
import { anyOf, required } from '@portcullis/core/policy'
import { HttpProblem, problems } from '@portcullis/hono'
import { NOTES, noteById } from './notes'
import { local, portcullis } from './portcullis'

// #region me
/** GET /api/me: the signed-in account. `security` is the verified context; no session, no call. */
export const me = portcullis.route('GET', '/api/me', { auth: required() }, async (_request, { security }) => {
  // `required()` lets no anonymous request through; the context type still allows one, so say what it is.
  const principal = security.principal
  if (principal === null) throw new HttpProblem(problems.authenticationRequired)
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
    // A thrown HttpProblem becomes application/problem+json (so does any other error, as a 500).
    if (found === undefined)
      throw new HttpProblem({ status: 404, code: 'note.not_found', detail: 'No such note' })
    return Response.json(found)
  },
)
// #endregion notes
