/** How a lazy request is made whole: its URL and the init of the `Request` it stands for. */
interface LazyState {
  readonly make: typeof Request
  readonly url: string
  readonly headers: () => [string, string][]
  full: Request | undefined
}

const STATE: unique symbol = Symbol('portcullis.lazy-request')

type Lazy = Request & { [STATE]: LazyState }

let made: { readonly make: typeof Request; readonly prototype: object } | undefined

function whole(request: Lazy): Request {
  const state = request[STATE]
  state.full ??= new state.make(state.url, { method: 'GET', headers: state.headers() })
  return state.full
}

/** Every member of a `Request` prototype chain but the constructor, with its descriptor. */
function members(prototype: object): Map<string | symbol, PropertyDescriptor> {
  const found = new Map<string | symbol, PropertyDescriptor>()
  for (let level = prototype; level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const key of Reflect.ownKeys(level)) {
      const descriptor = Object.getOwnPropertyDescriptor(level, key)
      if (key !== 'constructor' && !found.has(key) && descriptor !== undefined) found.set(key, descriptor)
    }
  }
  return found
}

/**
 * The prototype of lazy requests for the current global `Request` (a runtime or a server adapter such
 * as `@hono/node-server` may replace it): a `Request` whose `method` and `url` are its own, and whose
 * every other member (`headers`, `signal`, `body`, `clone()`, ...) is the one of the whole request,
 * made on first use.
 */
function lazyPrototype(make: typeof Request): object {
  if (made?.make === make) return made.prototype
  const prototype = Object.create(make.prototype) as object
  for (const [key, descriptor] of members(make.prototype)) {
    if (key === 'method' || key === 'url') continue
    if (typeof descriptor.value === 'function') {
      Object.defineProperty(prototype, key, {
        configurable: true,
        value(this: Lazy, ...args: unknown[]) {
          const request = whole(this) as unknown as Record<string | symbol, (...values: unknown[]) => unknown>
          return request[key]?.(...args)
        },
      })
    } else if (descriptor.get !== undefined) {
      Object.defineProperty(prototype, key, {
        configurable: true,
        get(this: Lazy) {
          return (whole(this) as unknown as Record<string | symbol, unknown>)[key]
        },
      })
    }
  }
  Object.defineProperties(prototype, {
    method: { configurable: true, get: (): string => 'GET' },
    url: {
      configurable: true,
      get(this: Lazy) {
        return this[STATE].url
      },
    },
  })
  made = { make, prototype }
  return prototype
}

/**
 * A body-less `GET url` request that makes its `Request` only when something reads more than its
 * method and URL: routing and a shared evaluation need no headers, so most in-process reads never
 * build one.
 */
export function lazyGetRequest(url: string, headers: () => [string, string][]): Request {
  const make = globalThis.Request
  const request = Object.create(lazyPrototype(make)) as Lazy
  request[STATE] = { make, url, headers, full: undefined }
  return request
}
