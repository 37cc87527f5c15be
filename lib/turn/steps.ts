/** ctx.step (placeholder until h6's version lands: runs fn every time). */
export interface TurnSteps {
  keepStep(key: string, name: string, json: string): Promise<boolean>;
  loadSteps(key: string): Promise<Record<string, string> | undefined>;
}
export class StepBook {
  constructor(private readonly o: { store: TurnSteps | undefined; key: string; kept: Record<string, string> | undefined }) {}
  static async load(store: TurnSteps, key: string): Promise<Record<string, string> | undefined> {
    return store.loadSteps(key);
  }
  async run<T>(_name: string, fn: () => Promise<T> | T): Promise<T> {
    void this.o;
    return fn();
  }
}
