export default function Home() {
  return (
    <main>
      <h1>Portcullis on Next.js</h1>
      <p>The API lives under /api.</p>
    </main>
  )
}
