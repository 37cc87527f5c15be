/**
 * Rate-limit windows shared by the copies, as this copy knows them: learnt
 * from the claim replies it receives anyway, and published on a refusal.
 */
/** Windows learnt from claim replies, with a way to publish ours. */
export class WindowBook {
  readonly #known = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly send: (field: string, reopenAt: number) => void,
  ) {}

  learn(windows: ReadonlyMap<string, number>): void {
    for (const [field, at] of windows) if (at > (this.#known.get(field) ?? 0)) this.#known.set(field, at);
  }

  known(field: string): number | undefined {
    const at = this.#known.get(field);
    if (at === undefined) return undefined;
    if (at <= this.now()) {
      this.#known.delete(field);
      return undefined;
    }
    return at;
  }

  publish(field: string, reopenAt: number): void {
    this.#known.set(field, Math.max(reopenAt, this.#known.get(field) ?? 0));
    this.send(field, reopenAt);
  }
}
