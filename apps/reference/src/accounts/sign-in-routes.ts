import type { LocalAccounts, SessionSignIn } from '@portcullis/core/local-accounts'
import { clearSessionCookie, PendingSecondFactor } from '@portcullis/core/local-accounts'
import { anonymous, required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import type { Request, RequestHandler, Response } from 'express'
import type { ReferenceContext } from '../app-context.js'
import { DEMO_USERS } from '../directory/demo-directory.js'
import { developerDetails } from '../layout/error-pages.js'
import { html } from '../layout/html.js'
import {
  SIGN_IN_PATH,
  SIGN_OUT_PATH,
  SIGN_UP_PATH,
  sendPage,
  sessionViewer,
  type Viewer,
} from '../layout/layout.js'
import { CONNECT_RESUME_PATH, interactionPath, rememberInteraction } from '../oauth-server/resume.js'
import { passkeyElsewhere, secondFactorPage } from './factor-pages.js'
import { passkeyPlaceOf } from './factor-routes.js'
import { field, refusal, requestInfo, retryHint, safeReturn } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'
import { DEMO_PROVIDER, RETURN_PATHS } from './oauth.js'
import type { SecondFactors } from './second-factors.js'

/**
 * The anonymous pages of local accounts on `router`: sign-in (password, passkey or the demo IdP; the
 * second step of a two-step sign-in), sign-up and sign-out. Returns how a response sets or clears the
 * session cookie, for the account pages.
 */
export function signInRoutes(
  router: SecureRouter,
  security: Pick<Security, 'evaluation' | 'evaluator'>,
  context: ReferenceContext,
  options: { readonly local: LocalAccounts; readonly factors: SecondFactors },
  form: RequestHandler,
) {
  const { local } = options
  const auth = required(SESSION_MECHANISM)
  const idp = context.idp !== undefined
  const place = passkeyPlaceOf(options.factors)
  const setSession = (response: Response, signIn: SessionSignIn) =>
    response.append('Set-Cookie', signIn.setCookie)
  const clearSession = (response: Response) => {
    if (local.sessionCookie !== undefined)
      response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
  }
  /** Anonymous forms: the CSRF check of `/auth/login` (Fetch Metadata, Origin, or the form's token). */
  const csrfPasses = (request: Request) =>
    local.csrf.check({
      method: request.method,
      secFetchSite: request.get('sec-fetch-site'),
      origin: request.get('origin'),
      presentedToken: field(request, 'csrf_token') || request.get(local.csrf.header),
      sessionId: local.csrf.anchorFrom(request.headers.cookie),
      clientAddress: local.clientAddress(requestInfo(request)),
    }).ok
  /** The synchronizer token for an anonymous form (a pre-session cookie when there is no session yet). */
  const csrfToken = (request: Request, response: Response) => {
    const anchor = local.csrf.anchorFrom(request.headers.cookie)
    if (anchor !== undefined) return local.csrf.token(anchor)
    const seed = local.csrf.newSeed()
    response.append('Set-Cookie', seed.setCookie)
    return seed.csrfToken
  }

  /** Who is signed in already (the header shows it, and the page says what signing in again does). */
  const viewerOf = (request: Request) => sessionViewer(security, request, context.directory)
  const alreadySignedIn = (viewer: Viewer | undefined) =>
    viewer === undefined
      ? ''
      : html`<p class="notice" role="status" data-testid="signed-in-as">You are signed in as
        <strong>${viewer.displayName}</strong>. Signing in here as someone else ends that session in this
        browser; <a href="/">go on as ${viewer.displayName}</a> instead.</p>`

  /** A sign-in form sent from another site (or a page too old to verify): said in words, nothing done. */
  const crossSite = async (request: Request, response: Response) => {
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        title: 'The form could not be verified',
        area: 'sign-in',
        viewer: await viewerOf(request),
        body: html`<p>The form was sent from another site, or from a page that is too old. Nobody was signed in.
          Open the page again and send the form from there.</p>
          <p><a class="button" href="${SIGN_IN_PATH}">Sign in</a></p>
          ${developerDetails(403, 'local.csrf_refused')}`,
      },
      403,
    )
  }

  const signInPage = async (
    request: Request,
    response: Response,
    state: { status?: number; message?: string; username?: string } = {},
  ) => {
    const viewer = await viewerOf(request)
    const returnTo = safeReturn(request.query.return_to ?? field(request, 'return_to'))
    const interaction = interactionPath(returnTo)
    // An authorization waiting for this sign-in: the IdP returns to a fixed path, which resumes it.
    if (interaction !== undefined) {
      response.append(
        'Set-Cookie',
        rememberInteraction(interaction, context.publicOrigin.startsWith('https:')),
      )
    }
    const oauthReturn =
      interaction !== undefined
        ? CONNECT_RESUME_PATH
        : (RETURN_PATHS as readonly string[]).includes(returnTo)
          ? returnTo
          : '/'
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        title: 'Sign in',
        area: 'sign-in',
        viewer,
        body: html`${state.message ? html`<p class="notice warning" role="alert">${state.message}</p>` : alreadySignedIn(viewer)}
        <div class="grid">
        <form method="post" action="${SIGN_IN_PATH}" class="stack card" aria-label="Sign in with a password">
          <h2>Username and password</h2>
          <input type="hidden" name="csrf_token" value="${csrfToken(request, response)}">
          <input type="hidden" name="return_to" value="${returnTo}">
          <label>Username <input name="username" autocomplete="${place === undefined ? 'username' : 'username webauthn'}" required value="${state.username ?? ''}"></label>
          <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
          <div><button type="submit">Sign in</button></div>
          <p class="muted"><a href="/forgot-password" data-testid="forgot-password">Forgot password?</a> · No account? <a href="${SIGN_UP_PATH}">Sign up</a>.</p>
        </form>
        ${
          place === undefined
            ? ''
            : html`<div class="card"><h2>Passkey</h2>
              <p>No password: your device confirms it is you. The username field also suggests your passkeys.</p>
              <p><button type="button" data-passkey-sign-in>Sign in with a passkey</button></p>
              <div class="notice warning" role="alert" data-passkey-unknown hidden><p><strong>This passkey is not
                recognised.</strong> It may have been removed from your account, or made for another copy of this
                app. Sign in with your username and password${idp ? ' or with the demo IdP' : ''} instead; you
                can add a new passkey on your account page.</p></div>
              ${passkeyElsewhere(place, `${SIGN_IN_PATH}${returnTo === '/' ? '' : `?return_to=${encodeURIComponent(returnTo)}`}`)}</div>`
        }
        ${
          idp
            ? html`<div class="card"><h2>Demo OpenID Provider</h2>
              <p>Signs in the local account the demo identity was linked to (link it on your account page first).</p>
              <p><a class="button" href="/auth/oauth/${DEMO_PROVIDER}/login?return_to=${encodeURIComponent(oauthReturn)}">Sign in with the demo IdP</a></p></div>`
            : ''
        }
        </div>
        <h2>Demo users</h2>
        <p>Their passwords were printed on the console when the app first started (derived from the secrets
          file, so they stay the same across restarts).</p>
        <table data-testid="demo-users"><thead><tr><th>User</th><th>Grants</th></tr></thead><tbody>
          ${DEMO_USERS.map((user) => html`<tr><td>${user.displayName} <code>${user.username}</code></td><td>${user.summary}</td></tr>`)}
        </tbody></table>`,
      },
      state.status,
    )
  }

  router.get(SIGN_IN_PATH, { auth: anonymous() }, (request, response) => signInPage(request, response))

  router.post(SIGN_IN_PATH, { auth: anonymous() }, form, async (request: Request, response: Response) => {
    response.setHeader('Cache-Control', 'no-store')
    if (!csrfPasses(request)) {
      await crossSite(request, response)
      return
    }
    const username = field(request, 'username')
    try {
      const signIn = await local.login(
        { username, password: field(request, 'password') },
        {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(request.headers.cookie),
          request: requestInfo(request),
        },
      )
      if (signIn instanceof PendingSecondFactor) {
        await secondFactor(request, response, signIn.reveal())
        return
      }
      setSession(response, signIn as SessionSignIn)
      response.redirect(303, safeReturn(field(request, 'return_to')))
    } catch (error) {
      const { status, message } = refusal(error)
      retryHint(response, error)
      await signInPage(request, response, { status, message, username })
    }
  })

  /** The second step of a password sign-in of an account with TOTP: a code or a recovery code. */
  const secondFactor = async (
    request: Request,
    response: Response,
    pendingToken: string,
    message?: string,
  ) => {
    const viewer = await viewerOf(request)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        title: 'Two-step sign-in',
        area: 'sign-in',
        viewer,
        body: secondFactorPage({
          pendingToken,
          csrfToken: csrfToken(request, response),
          returnTo: safeReturn(field(request, 'return_to')),
          ...(message === undefined ? {} : { message }),
        }),
      },
      message === undefined ? 200 : 401,
    )
  }

  router.post(
    '/sign-in/second-factor',
    { auth: anonymous() },
    form,
    async (request: Request, response: Response) => {
      response.setHeader('Cache-Control', 'no-store')
      if (!csrfPasses(request)) {
        await crossSite(request, response)
        return
      }
      const pendingToken = field(request, 'pending_token')
      const recoveryCode = field(request, 'recovery_code')
      try {
        const signIn = (await local.completeSecondFactor(
          recoveryCode === ''
            ? { pendingToken, code: field(request, 'code') }
            : { pendingToken, recoveryCode },
          {
            transport: 'session',
            replacesSessionId: local.csrf.sessionIdFrom(request.headers.cookie),
            request: requestInfo(request),
          },
        )) as SessionSignIn
        setSession(response, signIn)
        response.redirect(303, safeReturn(field(request, 'return_to')))
      } catch (error) {
        const { status, message } = refusal(error)
        retryHint(response, error)
        // A wrong code keeps the pending sign-in (until it expires): the same page, the same token.
        if (
          status === 401 &&
          !['totp.pending_invalid', 'local.sign_in_required'].includes(
            String((error as { code?: unknown }).code),
          )
        ) {
          await secondFactor(request, response, pendingToken, message)
          return
        }
        await signInPage(request, response, { status, message })
      }
    },
  )

  const signUpPage = async (
    request: Request,
    response: Response,
    state: { status?: number; message?: string; username?: string } = {},
  ) => {
    const viewer = await viewerOf(request)
    response.setHeader('Cache-Control', 'no-store')
    sendPage(
      response,
      {
        title: 'Sign up',
        area: 'sign-in',
        viewer,
        body: html`${state.message ? html`<p class="notice warning" role="alert">${state.message}</p>` : alreadySignedIn(viewer)}
        <p class="lead">A new account of this app. It starts with no access to any tenant (the demo users
          have some).</p>
        <form method="post" action="${SIGN_UP_PATH}" class="stack card" aria-label="Sign up">
          <input type="hidden" name="csrf_token" value="${csrfToken(request, response)}">
          <label>Username <input name="username" autocomplete="username" required value="${state.username ?? ''}"></label>
          <label>Password <input name="password" type="password" autocomplete="new-password" minlength="8" required></label>
          <div><button type="submit">Create account</button></div>
        </form>`,
      },
      state.status,
    )
  }

  router.get(SIGN_UP_PATH, { auth: anonymous() }, (request, response) => signUpPage(request, response))

  router.post(SIGN_UP_PATH, { auth: anonymous() }, form, async (request: Request, response: Response) => {
    response.setHeader('Cache-Control', 'no-store')
    if (!csrfPasses(request)) {
      await crossSite(request, response)
      return
    }
    const username = field(request, 'username')
    const password = field(request, 'password')
    try {
      // The account and its password method are created in one transaction: nothing else to register.
      await local.register({ username, password }, requestInfo(request))
      const signIn = (await local.login(
        { username, password },
        {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(request.headers.cookie),
          request: requestInfo(request),
        },
      )) as SessionSignIn
      setSession(response, signIn)
      response.redirect(303, '/account')
    } catch (error) {
      const { status, message } = refusal(error)
      retryHint(response, error)
      await signUpPage(request, response, { status, message, username })
    }
  })

  router.post(SIGN_OUT_PATH, { auth }, async (request, response) => {
    const principal = request.security.principal
    if (principal !== null) {
      await local.logout({
        accountId: principal.id,
        credentials: local.credentialsOf(request.security.evidence),
        request: requestInfo(request),
      })
    }
    clearSession(response)
    response.redirect(303, '/')
  })

  return { setSession, clearSession }
}
