/** A note of the demo data: what the API and the MCP resources serve. */
export interface Note {
  readonly id: string
  readonly title: string
  readonly body: string
}

export const NOTES: readonly Note[] = [
  { id: '1', title: 'Welcome', body: 'Portcullis secures this Next.js application.' },
  { id: '2', title: 'Agents', body: 'An MCP client reads these notes with an API key.' },
]

export function noteById(id: string): Note | undefined {
  return NOTES.find((note) => note.id === id)
}
