import { defineConfig } from 'vitest/config'

// Runs every workspace project at once: `pnpm vitest run` from the root.
export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'docs',
      'apps/*',
      'examples/*',
      'tooling/api-surface',
      'tooling/database',
      'tooling/bench',
      'tooling/deps',
      'tooling/packaging',
    ],
  },
})
