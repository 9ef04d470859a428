// Vitest setup of this package (see vitest.config.ts): FC_SEED and FC_PATH replay a failing fast-check run.
import fc from 'fast-check'
import { replaySettings } from './replay.js'

const settings = replaySettings(process.env)
if (settings !== undefined) {
  fc.configureGlobal({ ...fc.readConfigureGlobal(), ...settings })
  const path = settings.path === undefined ? '' : `, path ${settings.path}`
  console.warn(`fast-check: replaying seed ${settings.seed}${path} (from FC_SEED/FC_PATH)`)
}
