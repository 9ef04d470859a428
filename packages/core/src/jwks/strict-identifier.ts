/**
 * A "strict identifier" (`kid`, `sub`, `client_id`, audience values): a non-empty string of at most
 * `maxLength` UTF-16 units, without surrounding whitespace or control characters, already in Unicode NFC.
 * Comparing such values byte for byte is then safe.
 */
export function isStrictIdentifier(value: unknown, maxLength = 1024): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) return false
  if (value.trim() !== value) return false
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return false
  return value.normalize('NFC') === value
}
