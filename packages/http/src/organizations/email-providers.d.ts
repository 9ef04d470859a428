// `email-providers` ships no types: its default export is the list of domains (lower-case strings).
declare module 'email-providers' {
  const domains: readonly string[]
  export default domains
}
