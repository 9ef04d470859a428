/** A fetch-driven browser's cookies for one origin (the app, or the demo IdP's interaction cookies). */
export class Jar {
  readonly #cookies = new Map<string, string>()

  header(): Record<string, string> {
    return this.#cookies.size === 0
      ? {}
      : { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
  }

  keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const index = pair.indexOf('=')
      if (index > 0) this.#cookies.set(pair.slice(0, index), pair.slice(index + 1))
    }
  }
}

/** One request without following redirects, carrying and keeping the jar's cookies. */
export async function step(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...jar.header(), ...(init.headers ?? {}) },
  })
  jar.keep(response)
  return response
}
