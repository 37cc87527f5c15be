/**
 * The two routes a copy serves and the edge forwards to: one constant each,
 * so the edge, the copies and the leg checks cannot drift apart.
 */
/** Every Slack delivery (events, commands, interactivity) is POSTed here. */
export const EVENTS_PATH = '/slack/events';
/** A copy's (and the edge's) health: GET or HEAD. */
export const HEALTH_PATH = '/slack/health';
