import type { CredentialRestrictions } from '@portcullis/core'
import type { ApiKeyRecord } from '@portcullis/core/api-keys'
import type { ApiKeyRow } from './tables.js'

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A fresh copy of the known restriction lists, in a fixed field order (as the memory store keeps them). */
export function copyRestrictions(restrictions: CredentialRestrictions): CredentialRestrictions {
  const { scopes, roles, capabilities, teams, tenants } = restrictions
  const copied: Mutable<CredentialRestrictions> = {}
  if (scopes !== undefined) copied.scopes = [...scopes]
  if (roles !== undefined) copied.roles = [...roles]
  if (capabilities !== undefined) copied.capabilities = [...capabilities]
  if (teams !== undefined) copied.teams = [...teams]
  if (tenants !== undefined) {
    copied.tenants = Object.fromEntries(Object.entries(tenants).map(([tenant, list]) => [tenant, [...list]]))
  }
  return copied
}

/** The row for a validated record; `lastUsedAt` is written as given, the rest of the lifecycle too. */
export function toRow(record: ApiKeyRecord): ApiKeyRow {
  return {
    keyId: record.keyId,
    ownerId: record.ownerId,
    ownerKind: record.ownerKind,
    digest: new Uint8Array(record.digest),
    pepperVersion: record.pepperVersion,
    restrictions: copyRestrictions(record.restrictions),
    label: record.label ?? null,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt ?? null,
    revokedAt: record.revokedAt ?? null,
    overlapUntil: record.overlapUntil ?? null,
    lastUsedAt: record.lastUsedAt ?? null,
  }
}

/** The record a row holds; every call builds new objects, so callers never share state with the store. */
export function toRecord(row: ApiKeyRow): ApiKeyRecord {
  const record: Mutable<ApiKeyRecord> = {
    keyId: row.keyId,
    ownerId: row.ownerId,
    ownerKind: row.ownerKind,
    digest: new Uint8Array(row.digest),
    pepperVersion: row.pepperVersion,
    restrictions: copyRestrictions(row.restrictions),
    createdAt: row.createdAt,
  }
  if (row.expiresAt !== null) record.expiresAt = row.expiresAt
  if (row.revokedAt !== null) record.revokedAt = row.revokedAt
  if (row.overlapUntil !== null) record.overlapUntil = row.overlapUntil
  if (row.lastUsedAt !== null) record.lastUsedAt = row.lastUsedAt
  if (row.label !== null) record.label = row.label
  return record
}
