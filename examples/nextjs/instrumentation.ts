// Runs once when the server starts, before it serves a request (Next.js instrumentation).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { seedDemoData } = await import('./lib/demo-data')
  await seedDemoData()
}
