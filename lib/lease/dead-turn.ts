/** A turn that could not be answered, for the owner's DM. */
export interface DeadTurn {
  key: string;
  eventId: string;
  channel: string | undefined;
  reason: string;
  attempts: number;
}
