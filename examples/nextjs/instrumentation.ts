// Runs once when the server starts, before it serves a request (Next.js instrumentation).
export async function register(): Promise<void> {
  // The import inside the check: Next.js compiles this file for the Edge runtime too, and drops it there.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    // The schema first (Postgres stores: `migrate`, under its advisory lock, so instances may start
    // together), then the demo data.
    const { stores } = await import('./lib/stores')
    await stores.prepare()
    const { seedDemoData } = await import('./lib/demo-data')
    await seedDemoData()
  }
}
