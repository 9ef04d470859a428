// Vitest setup of this package (see vitest.config.ts): FC_SEED and FC_PATH replay a failing fast-check run.
// fast-check is loaded only then, so the files that do not use it pay nothing for this setup.
import { replaySettings } from './replay.js'

const settings = replaySettings(process.env)
if (settings !== undefined) {
  const { default: fc } = await import('fast-check')
  fc.configureGlobal({ ...fc.readConfigureGlobal(), ...settings })
  const path = settings.path === undefined ? '' : `, path ${settings.path}`
  console.warn(`fast-check: replaying seed ${settings.seed}${path} (from FC_SEED/FC_PATH)`)
}
