// #region dedicated
// A route with its own file: export the value `route(...)` returned. It runs the route's policy first.
import { me } from '../../../lib/routes'

export const GET = me
// #endregion dedicated
