// Passkeys in the reference app's pages (served as /assets/passkeys.js, same origin, so the CSP
// `default-src 'self'` allows it). Hand-written, no bundler. It talks to the JSON routes under /auth:
// sign-in (a button, and conditional UI in the username field), adding a passkey, and the passkey step-up
// of a guarded form (the step-up cookie it earns is spent by the form's handler).

const status = document.querySelector('[data-passkey-status]')
const elsewhere = document.querySelector('[data-passkey-elsewhere]')
// The sign-in page's own words for a passkey the server does not know, naming the other ways in there.
const unknown = document.querySelector('[data-passkey-unknown]')

/** The server's code for a credential id no passkey has (removed, or another deployment's). */
const UNKNOWN_CREDENTIAL = 'passkey.unknown_credential'

function say(message) {
  if (unknown !== null) unknown.hidden = true
  if (status === null) return
  status.textContent = message
  status.hidden = message === ''
}

/** A refusal of the JSON routes: the problem's detail, and its stable code to decide on. */
class Refusal extends Error {
  constructor(message, code) {
    super(message)
    this.code = code
  }
}

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body ?? {}),
  })
  const answer = response.status === 204 ? {} : await response.json().catch(() => ({}))
  if (!response.ok)
    throw new Refusal(answer.detail || answer.title || `The server answered ${response.status}.`, answer.code)
  return answer
}

// WebAuthn Level 3 parses and serializes the JSON forms itself; the conversions below are only for
// browsers without it.
const decode = (text) =>
  Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0))
const encode = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
const withIds = (list) => (list ?? []).map((item) => ({ ...item, id: decode(item.id) }))

function creationOptions(json) {
  if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function')
    return PublicKeyCredential.parseCreationOptionsFromJSON(json)
  return {
    ...json,
    challenge: decode(json.challenge),
    user: { ...json.user, id: decode(json.user.id) },
    excludeCredentials: withIds(json.excludeCredentials),
  }
}

function requestOptions(json) {
  if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function')
    return PublicKeyCredential.parseRequestOptionsFromJSON(json)
  return { ...json, challenge: decode(json.challenge), allowCredentials: withIds(json.allowCredentials) }
}

function credentialJSON(credential) {
  if (typeof credential.toJSON === 'function') return credential.toJSON()
  const reply = credential.response
  const common = { clientDataJSON: encode(reply.clientDataJSON) }
  return {
    id: credential.id,
    rawId: encode(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response:
      'attestationObject' in reply
        ? {
            ...common,
            attestationObject: encode(reply.attestationObject),
            transports: reply.getTransports?.() ?? [],
          }
        : {
            ...common,
            authenticatorData: encode(reply.authenticatorData),
            signature: encode(reply.signature),
            userHandle: reply.userHandle ? encode(reply.userHandle) : undefined,
          },
  }
}

/**
 * A passkey the server does not know: the device is told to stop offering it (where the browser can), and
 * the person is told so, with the other ways in (the sign-in page's notice), or to confirm otherwise.
 */
function notRecognised(credentialId) {
  if (typeof PublicKeyCredential.signalUnknownCredential === 'function' && rpId && credentialId) {
    PublicKeyCredential.signalUnknownCredential({ rpId, credentialId }).catch(() => {})
  }
  if (unknown === null) {
    say(
      'This passkey is not recognised here: it may have been removed from the account. Confirm another way (your password or another passkey).',
    )
    return
  }
  say('')
  unknown.hidden = false
  document.querySelector('input[name="username"]')?.focus()
}

/** Runs a ceremony, saying what went wrong; a cancelled dialog says so plainly. */
async function attempt(work) {
  say('')
  try {
    await work()
  } catch (error) {
    if (error?.name === 'AbortError') return
    if (error?.code === UNKNOWN_CREDENTIAL) return notRecognised(error.credentialId)
    say(error?.name === 'NotAllowedError' ? 'The passkey dialog was closed or timed out.' : error.message)
  }
}

/** Posts an assertion; a refusal carries the credential id it was about. */
async function postAssertion(path, credential) {
  const response = credentialJSON(credential)
  try {
    return await post(path, { response })
  } catch (error) {
    if (error instanceof Refusal) error.credentialId = response.id
    throw error
  }
}

const supported = typeof window.PublicKeyCredential === 'function'
const rpId = elsewhere?.dataset.rpId
const here = rpId === undefined || location.hostname === rpId || location.hostname.endsWith(`.${rpId}`)
const buttons = document.querySelectorAll(
  '[data-passkey-step-up], [data-passkey-register], [data-passkey-sign-in], [data-passkey-reset]',
)
if (!supported || !here) {
  for (const button of buttons) button.disabled = true
  if (!here && elsewhere !== null) elsewhere.hidden = false
  if (!supported) say('This browser has no passkey support.')
}

// Sign-in: the button, and the username field's suggestions (conditional UI) while the page is open.
let conditional
async function signIn(mediation) {
  const options = await post('/auth/passkeys/sign-in/options')
  const request = { publicKey: requestOptions(options) }
  if (mediation === 'conditional') {
    conditional = new AbortController()
    Object.assign(request, { mediation, signal: conditional.signal })
  }
  const credential = await navigator.credentials.get(request)
  await postAssertion('/auth/passkeys/sign-in', credential)
  const target = document.querySelector('input[name="return_to"]')?.value || '/'
  location.assign(target.startsWith('/') && !target.startsWith('//') ? target : '/')
}

const signInButton = document.querySelector('[data-passkey-sign-in]')
if (signInButton !== null && supported && here) {
  signInButton.addEventListener('click', () => {
    conditional?.abort()
    attempt(() => signIn('modal'))
  })
  if (document.querySelector('input[autocomplete~="webauthn"]') !== null) {
    PublicKeyCredential.isConditionalMediationAvailable?.().then((available) => {
      if (available) attempt(() => signIn('conditional'))
    })
  }
}

// Adding a passkey (after the `passkey-register` step-up): the server's options, the authenticator, the
// attestation back.
for (const button of document.querySelectorAll('[data-passkey-register]')) {
  button.addEventListener('click', () =>
    attempt(async () => {
      const options = await post('/auth/passkeys/register/options')
      const credential = await navigator.credentials.create({ publicKey: creationOptions(options) })
      const name = document.querySelector('input[name="passkey_name"]')?.value.trim()
      await post('/auth/passkeys/register', {
        response: credentialJSON(credential),
        ...(name ? { name } : {}),
      })
      location.assign('/account?passkey=added')
    }),
  )
}

// The passkey step of a password reset: the page carries the assertion options and the reset token; the
// assertion goes to the JSON route, which sets the new password.
for (const button of document.querySelectorAll('[data-passkey-reset]')) {
  button.addEventListener('click', () =>
    attempt(async () => {
      const options = JSON.parse(button.dataset.options)
      const credential = await navigator.credentials.get({ publicKey: requestOptions(options) })
      await post('/auth/password/reset/passkey', {
        resetToken: button.dataset.resetToken,
        response: credentialJSON(credential),
      })
      location.assign(button.dataset.done)
    }),
  )
}

// A passkey instead of the password before a guarded action: the step-up cookie, then the form.
for (const button of document.querySelectorAll('[data-passkey-step-up]')) {
  button.addEventListener('click', () =>
    attempt(async () => {
      const purpose = encodeURIComponent(button.dataset.passkeyStepUp)
      const options = await post(`/auth/step-up/${purpose}/passkey/options`)
      const credential = await navigator.credentials.get({ publicKey: requestOptions(options) })
      await postAssertion(`/auth/step-up/${purpose}/passkey`, credential)
      button.form.submit()
    }),
  )
}
