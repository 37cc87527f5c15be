/**
 * What this isolate last saw of a copy: when it was up, when it failed, and
 * why. A copy that answered 401 or 403 to a delivery the edge had verified is
 * `refusing`: reachable, but it cannot check a signature (a stale secret), so
 * it serves nothing. For routing it counts as down.
 */
export type CopyState = 'unknown' | 'up' | 'down' | 'refusing';

export class CopyView {
  upAt: number | undefined;
  downAt: number | undefined;
  reason: string | undefined;
  /** The 401 or 403 of a copy refusing, while it is. */
  refusing: 401 | 403 | undefined;

  markUp(now: number): void {
    this.upAt = now;
    this.downAt = undefined;
    this.reason = undefined;
    this.refusing = undefined;
  }

  markDown(now: number, reason: string): void {
    this.downAt = now;
    this.reason = reason;
    this.refusing = undefined;
  }

  markRefusing(now: number, status: 401 | 403, reason: string): void {
    this.downAt = now;
    this.reason = reason;
    this.refusing = status;
  }

  get state(): CopyState {
    if (this.downAt !== undefined) return this.refusing !== undefined ? 'refusing' : 'down';
    return this.upAt !== undefined ? 'up' : 'unknown';
  }

  toJSON(): Record<string, unknown> {
    return {
      state: this.state,
      last_up: this.upAt === undefined ? null : new Date(this.upAt).toISOString(),
      last_down: this.downAt === undefined ? null : new Date(this.downAt).toISOString(),
      ...(this.reason ? { reason: this.reason } : {}),
    };
  }
}
