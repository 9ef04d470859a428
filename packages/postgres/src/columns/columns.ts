import { customType, timestamp } from 'drizzle-orm/pg-core'

/** `timestamptz` read and written as a `Date`. */
export const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** `bytea` read and written as a `Uint8Array` (the driver's Buffer is copied, never shared). */
export const bytea = customType<{ data: Uint8Array; driverData: Buffer }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
  fromDriver: (value) => new Uint8Array(value),
})
