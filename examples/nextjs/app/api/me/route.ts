// A route with its own file: export the handler `route(...)` returned. Its policy runs first.
import { me } from '../../../lib/routes'

export const GET = me
