import { MemorySecurityLog, SecurityLogWriter } from '@portcullis/core/security-log'
import { describeUserAgent } from '@portcullis/http/user-agents'
import { hybridLocalAccounts, meScenario, PASSWORD, SESSION_COOKIE } from './account-world.js'
import { type Browser, browser } from './factor-client.js'
import type { AdapterScenario } from './scenario.js'

/** Two devices the cases sign in from, and what their `User-Agent` names. */
export const DEVICES = {
  laptop: {
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    name: 'Firefox 133 on Linux',
  },
  phone: {
    userAgent:
      'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    name: 'Chrome 131 on Android 15',
  },
} as const

/**
 * The activity world: local accounts (hybrid profile, memory stores) whose security events go to a
 * `SecurityLogWriter` over a `MemorySecurityLog` (devices parsed with `describeUserAgent`), the
 * local-account routes and the activity routes over that log, and `GET`/`POST /me` for any local
 * mechanism.
 */
export async function activityWorld() {
  const log = new MemorySecurityLog()
  const writer = new SecurityLogWriter({ log, describeUserAgent, flushDelayMs: 1 })
  const local = await hybridLocalAccounts({ events: writer.sink })
  const scenario: AdapterScenario = {
    ...meScenario(local, 'Activity'),
    activity: { local, securityLog: log },
  }
  /** Waits until every event so far is in the log (the writer batches off the request path). */
  const written = async () => {
    if (!(await writer.flush(5_000))) throw new Error('the security log writer did not catch up')
  }
  return { scenario, log, writer, written }
}

/** Registers `username` (from a fresh browser without a session). */
export async function register(url: string, username: string): Promise<void> {
  const answer = await browser(url).post('/auth/register', { username, password: PASSWORD })
  if (answer.status !== 201) throw new Error(`registration answered ${answer.status}`)
}

/** A browser of `device` signed in as `username` with the password: it holds the session cookie. */
export async function signedInDevice(
  url: string,
  username: string,
  device: keyof typeof DEVICES,
): Promise<Browser> {
  const client = browser(url)
  const headers = { 'user-agent': DEVICES[device].userAgent }
  const login = await client.post('/auth/login', { username, password: PASSWORD }, headers)
  if (login.status !== 200 || !client.cookies.has(SESSION_COOKIE)) {
    throw new Error(`login answered ${login.status}`)
  }
  return client
}
