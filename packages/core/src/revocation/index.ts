export { MemoryRevocationNotices } from './memory-revocation-notices.js'
export type { RevocationNotice, RevocationNoticeKind } from './notice.js'
export {
  decodeRevocationNotice,
  encodeRevocationNotice,
  MAX_NOTICE_IDENTIFIER_LENGTH,
  revocationNotice,
  revocationNoticePrefix,
} from './notice.js'
export type { RevocationNotices, RevocationSubscriber } from './revocation-notices.js'
