/** What this isolate last saw of a copy: when it was up, when it failed, and why. */
export class CopyView {
  upAt: number | undefined;
  downAt: number | undefined;
  reason: string | undefined;

  markUp(now: number): void {
    this.upAt = now;
    this.downAt = undefined;
    this.reason = undefined;
  }

  markDown(now: number, reason: string): void {
    this.downAt = now;
    this.reason = reason;
  }

  toJSON(): Record<string, unknown> {
    const state = this.downAt !== undefined ? 'down' : this.upAt !== undefined ? 'up' : 'unknown';
    return {
      state,
      last_up: this.upAt === undefined ? null : new Date(this.upAt).toISOString(),
      last_down: this.downAt === undefined ? null : new Date(this.downAt).toISOString(),
      ...(this.reason ? { reason: this.reason } : {}),
    };
  }
}
