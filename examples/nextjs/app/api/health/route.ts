import { required } from '@portcullis/core/policy'

export function GET(): Response {
  return Response.json({ ok: true, policy: required().kind })
}
