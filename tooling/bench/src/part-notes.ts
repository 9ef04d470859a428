// What the profiles and the in-process part-cost tables showed, per route family: the prose of the
// "What each part costs" section of docs/performance.md. Figures stay in the tables the benches write;
// these notes say what each part is and why it costs what it does.
export interface PartNote {
  readonly what: string
  readonly note: string
}

export const PART_NOTES: readonly PartNote[] = Object.freeze([
  {
    what: 'A request on loopback',
    note:
      'Most of a bench request is Node itself: the HTTP parser, the socket write (`writev`) and garbage ' +
      'collection take most of the server thread in every CPU profile (`node --cpu-prof`, own frame of each ' +
      'sample), and the same on both sides of a comparison. What Portcullis adds shows as a ratio only against ' +
      'that: a part costing as much as the bare request halves the rate.',
  },
  {
    what: 'Fetch form and Hono',
    note:
      'The fetch form is a Hono app, so its floor is Hono itself (the "Hono app" row of the fetch-form ' +
      'part-cost table, against a bare fetch handler). On a secured route Portcullis adds, per request: the ' +
      "application middleware (the request's anonymous context, the JSON refusal, one header pass that also " +
      "adds an authenticated answer's `no-store`), the route middleware (policy evaluation: every registered " +
      'mechanism reads its header once, then the route decision) and the lightweight response kept as given ' +
      '(the header pass edits its plain header record instead of making a `Headers`). The mechanism itself ' +
      '(a cached session, an API key by its digest memo, a cached access token) is the smaller part.',
  },
  {
    what: 'MCP resources/read',
    note:
      'A read runs the marked route in-process: on top of a GET of that route it reads and parses the ' +
      'JSON-RPC body, dispatches it, makes the in-process GET (a real `Request`, with the caller’s headers, ' +
      'so handlers can pass it on to `fetch`), arms the read timeout, and serialises the answer. The ' +
      'in-process `Request` (its `AbortSignal` and header copy) is the largest Portcullis part; a lighter ' +
      'request object would break handlers that hand their request to `fetch` or `new Request`.',
  },
  {
    what: 'DPoP-bound route',
    note:
      'The proof signature is verified on every request (a proof is single-use, so nothing is cached): in ' +
      'the same run the whole proof check runs at about 0.7x the rate of the bare signature verification ' +
      '("DPoP authenticate vs the ES256 signature verification alone"), so the signature is most of it and ' +
      'sets the floor of the bound route against the bearer route. Beside it each proof costs a payload ' +
      'parse (strict JSON, no duplicate members), the `jti` replay check in the shared store and its key ' +
      'digest; the parse of a header seen before, its key thumbprint, the `htu` URL parses and the `ath` ' +
      'hash are remembered (bounded), while every check still runs on every proof.',
  },
])
