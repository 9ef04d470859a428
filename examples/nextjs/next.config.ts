import type { NextConfig } from 'next'

// Portcullis needs no configuration here: its packages (the Postgres stores with their migrations too)
// are bundled like any other, by Turbopack and by webpack. The example's test installs them from the
// packed tarballs, as from npm, and builds it with both.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `pnpm typecheck` runs tsc over the example; the build does not repeat it.
  typescript: { ignoreBuildErrors: true },
}

export default nextConfig
