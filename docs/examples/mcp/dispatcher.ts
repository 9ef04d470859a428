// The framework-neutral core: a registry and a JSON-RPC dispatcher over plain objects. The Express
// adapter is one transport; another framework supplies its own reader.
import { MCPDispatcher, MCPResourceRegistry } from '@portcullis/core/mcp'

type Handler = (params: Readonly<Record<string, string>>) => {
  status: number
  contentType: string
  body: string
}

const registry = new MCPResourceRegistry<Handler>({ scheme: 'app' })
registry.register({
  name: 'greeting',
  template: 'app://greetings/{name}',
  mimeType: 'text/plain',
  target: ({ name }) => ({ status: 200, contentType: 'text/plain', body: `Hello, ${name}` }),
})

// #region without-express
const dispatcher = new MCPDispatcher<Handler, { userId: string }>({
  registry,
  serverInfo: { name: 'greetings', version: '1.0.0' },
  openapi: () => ({ openapi: '3.1.0', info: { title: 'greetings', version: '1.0.0' }, paths: {} }),
  // The reader runs the target with the caller's context; a status outside 2xx becomes -32603.
  reader: async (resource, params) => {
    const { status, contentType, body } = resource.target(params)
    return { status, contentType, body: new TextEncoder().encode(body) }
  },
})
// #endregion without-express

const outcome = await dispatcher.handleText(
  '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"app://greetings/J%C3%BCrgen"}}',
  { context: { userId: 'u1' }, protocolVersion: '2025-11-25' },
)
// { status: 200, body: { jsonrpc: '2.0', id: 1, result: { contents: [{ uri, mimeType: 'text/plain', text: 'Hello, Jürgen' }] } } }
console.log(outcome)
