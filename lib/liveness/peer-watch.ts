/**
 * Watching the other copy through its health route, which costs no store
 * command: when it stops answering (or says it is draining), its leases will
 * lapse within a lease, and the reaper is told to look then instead of
 * waiting for its idle look.
 */
import type { Logger } from '../log/index.js';
import { fuseSignal } from '../time/index.js';

export type PeerState = 'unknown' | 'up' | 'down';

/** What one check says. Pure: a state change worth a look, or none. */
export function peerTransition(previous: PeerState, answered: { status: number; draining: boolean } | undefined): { state: PeerState; look: boolean } {
  const up = answered !== undefined && answered.status === 200;
  if (up) return { state: 'up', look: false };
  // Down now (no answer, an error, or draining): look once, on the change.
  return { state: 'down', look: previous !== 'down' };
}

export interface PeerWatchOptions {
  url: string;
  /** Sent as a bearer token, for the full health body. */
  token?: string | undefined;
  everyMs: number;
  /** The peer stopped answering (`reason`): its turns will need a look. */
  peerLost: (reason: string) => void;
  /** Called when the peer answers again after it was down. @default nothing */
  peerBack?: () => void;
  log: Logger;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The fuse of one check. @default 2000 */
  timeoutMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export class PeerWatch {
  #state: PeerState = 'unknown';
  #timer: ReturnType<typeof setInterval> | undefined;
  #checking = false;
  #downSince: number | null = null;

  constructor(private readonly o: PeerWatchOptions) {}

  get state(): PeerState {
    return this.#state;
  }

  /** When the peer stopped answering (the first failed check of this outage), epoch ms; null while it answers. */
  get downSince(): number | null {
    return this.#downSince;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.check(), this.o.everyMs);
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async check(): Promise<PeerState> {
    if (this.#checking) return this.#state;
    this.#checking = true;
    const { signal, cancel } = fuseSignal(this.o.timeoutMs ?? 2000);
    let answered: { status: number; draining: boolean } | undefined;
    try {
      const response = await (this.o.fetch ?? fetch)(`${this.o.url}/slack/health`, {
        signal,
        headers: this.o.token ? { authorization: `Bearer ${this.o.token}` } : {},
      });
      const body = (await response.json().catch(() => ({}))) as { status?: unknown };
      answered = { status: response.status, draining: body.status === 'draining' };
    } catch {
      answered = undefined;
    } finally {
      cancel();
      this.#checking = false;
    }
    const { state, look } = peerTransition(this.#state, answered);
    if (state === 'up' && this.#state === 'down') this.o.peerBack?.();
    if (state !== this.#state) this.o.log.info('peer.state', { state, status: answered?.status ?? 'no answer' });
    this.#state = state;
    if (state === 'down') this.#downSince ??= (this.o.now ?? Date.now)();
    else this.#downSince = null;
    if (look) this.o.peerLost(answered ? `HTTP ${answered.status}` : 'no answer');
    return state;
  }
}
