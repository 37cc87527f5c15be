/**
 * A schedule's firing as a delivery: an Events API envelope of autohub's own
 * event type, with an event id made from the schedule's name and slot, so
 * every copy that fires the slot claims the same key and it runs once, with
 * a mention's whole life (lease, takeover, retry, dead letter). Pure.
 */
export const SCHEDULE_EVENT_TYPE = 'autohub_schedule';

/** What a firing carries beside the event: read back into the turn's request (lib/turn/request.ts). */
export interface ScheduleFiring {
  name: string;
  /** The slot, ISO 8601 (UTC). */
  slot: string;
  /** Run more than `lateAfterMs` past its slot: missed while no copy ran. */
  late: boolean;
}

/** The slot's event id: the same on every copy, whatever its clock. */
export function scheduleEventId(name: string, slotMs: number): string {
  return `Ev-schedule-${name}-${new Date(slotMs).toISOString()}`;
}

/** The slot as a Slack-like ts (seconds, six decimals): the synthetic event's `ts`. */
export function slotTs(slotMs: number): string {
  return `${Math.floor(slotMs / 1000)}.${String((slotMs % 1000) * 1000).padStart(6, '0')}`;
}

export function scheduleEnvelope(o: { name: string; slotMs: number; late: boolean; target: { channel: string } | { dm: string } }): Record<string, unknown> {
  const firing: ScheduleFiring = { name: o.name, slot: new Date(o.slotMs).toISOString(), late: o.late };
  return {
    type: 'event_callback',
    event_id: scheduleEventId(o.name, o.slotMs),
    event_time: Math.floor(o.slotMs / 1000),
    autohub_schedule: firing,
    event: {
      type: SCHEDULE_EVENT_TYPE,
      // A DM's channel is found when the turn runs (conversations.open): the envelope names the person.
      ...('channel' in o.target ? { channel: o.target.channel } : { channel: o.target.dm, autohub_dm: o.target.dm }),
      ts: slotTs(o.slotMs),
      event_ts: slotTs(o.slotMs),
    },
  };
}

/** The firing an envelope carries, or undefined when it is not a schedule's. */
export function firingOf(body: { autohub_schedule?: unknown }): ScheduleFiring | undefined {
  const f = body.autohub_schedule as Partial<ScheduleFiring> | undefined;
  if (!f || typeof f.name !== 'string' || typeof f.slot !== 'string') return undefined;
  return { name: f.name, slot: f.slot, late: f.late === true };
}
