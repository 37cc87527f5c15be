export { ALLOWANCE_WARN_SHARE, allowanceReached, isAuthFailure, missedWhileServing, NOTICE_CAUSES, NOTICE_EVERY_MS, noticeStep } from './decide.js';
export type { NoticeCause, NoticeState, NoticeStep } from './decide.js';
export { appRateLimitedDetail, NOTICE_TITLES, noticeText } from './text.js';
export { OwnerNotices } from './owner-notices.js';
export type { NoticeRecord, OwnerNoticesOptions } from './owner-notices.js';
