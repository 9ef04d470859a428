export type { InteractionHandler } from './interaction-handler.js'
export { GRANT_ID_CLAIM } from './interaction-handler.js'
