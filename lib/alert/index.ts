export { ALERT_TEXT_MAX, alertBody, alertText } from './body.js';
export type { AlertBody } from './body.js';
export { AlertSender, alertOrigin } from './alert-sender.js';
export type { AlertSenderOptions, AlertView } from './alert-sender.js';
