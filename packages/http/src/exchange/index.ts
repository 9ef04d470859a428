// The framework-neutral request/answer model of generated routes (local accounts, OAuth, step-up).
export type { HttpAnswer, HttpExchange, NeutralRoute } from './exchange.js'
export { jsonAnswer, prefersJson, problemAnswer, seeOther } from './exchange.js'
