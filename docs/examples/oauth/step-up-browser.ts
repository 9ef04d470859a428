// Step-up in a browser: the page posts to `reauthenticate/{purpose}`, the provider forces a fresh login
// (max_age=0), the callback sets the purpose's `__Host-` step-up cookie and sends the browser back to
// `return_to`; the next same-site POST to the guarded route carries the cookie, which is consumed once.
import { requiresStepUp } from '@portcullis/core/authorization'
import { required } from '@portcullis/core/policy'
import { app, security } from './wiring.js'

const account = security.router({ prefix: '/account' })

// #region step-up-in-a-browser
// No header needed from a browser: the guard reads the `delete-account` step-up cookie, consumes the
// credential (bound to this session, account, purpose and security epoch) and deletes the cookie.
account.post(
  '/delete',
  { auth: required('session'), guards: [requiresStepUp('delete-account')] },
  (_request, response) => {
    response.status(204).end()
  },
)
// #endregion step-up-in-a-browser

app.use(account)

/**
 * The page's side, as plain HTML:
 *
 *   <form method="post" action="/auth/oauth/google/reauthenticate/delete-account">
 *     <input type="hidden" name="return_to" value="/settings/security">
 *     <button>Confirm it's you</button>
 *   </form>
 *
 * then, back on /settings/security:
 *
 *   <form method="post" action="/account/delete"><button>Delete my account</button></form>
 *
 * Without a fresh credential the POST answers 401 `step-up.required`.
 */
export const pages = ['/settings/security'] as const
