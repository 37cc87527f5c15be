/**
 * The playground's switches: each part of the system put in a state by name
 * (the hub killed, the store frozen, Slack rate limiting), over the drill's
 * harness. `set` returns what it did in a few words, for the timeline.
 */
import type { Harness } from '../drill/harness.js';

export const SWITCHES = {
  hub: ['up', 'unreachable', 'frozen', 'killed'],
  cloud: ['up', 'unreachable', 'killed'],
  'hub leg': ['ok', 'slow', 'refusing'],
  'cloud leg': ['ok', 'slow', 'refusing'],
  'rate limits': ['off', 'on'],
  store: ['ok', 'down', 'frozen', 'slow', 'refusing'],
} as const satisfies Record<string, readonly string[]>;

export type SwitchName = keyof typeof SWITCHES;
export type SwitchState = { [K in SwitchName]: (typeof SWITCHES)[K][number] };

export const INITIAL: SwitchState = { hub: 'up', cloud: 'up', 'hub leg': 'ok', 'cloud leg': 'ok', 'rate limits': 'off', store: 'ok' };

const POSTING = ['chat.postMessage', 'chat.startStream', 'chat.appendStream', 'chat.stopStream'];

export function isSwitch(name: string, value: string): name is SwitchName {
  return Object.hasOwn(SWITCHES, name) && (SWITCHES[name as SwitchName] as readonly string[]).includes(value);
}

/** Puts `name` in `value` from whatever it was in; returns what changed, for the timeline. */
export async function setSwitch(h: Harness, state: SwitchState, name: SwitchName, value: string): Promise<string> {
  const was = state[name];
  if (was === value) return `${name}: already ${value}`;
  switch (name) {
    case 'hub':
    case 'cloud': {
      const copy = name === 'hub' ? h.hub : h.cloud;
      const tunnel = name === 'hub' ? h.hubTunnel : h.cloudTunnel;
      // Back to up first, from wherever it was.
      if (was === 'killed') await copy.restart();
      if (was === 'frozen') await copy.thaw();
      if (was === 'unreachable') tunnel.mode = 'pass';
      if (value === 'killed') await copy.kill();
      if (value === 'frozen') await copy.freeze();
      if (value === 'unreachable') tunnel.mode = 'cut';
      break;
    }
    case 'hub leg':
    case 'cloud leg': {
      const tunnel = name === 'hub leg' ? h.hubTunnel : h.cloudTunnel;
      tunnel.slowMs = 2000;
      tunnel.mode = value === 'slow' ? 'slow' : value === 'refusing' ? 'refuse' : 'pass';
      break;
    }
    case 'rate limits':
      // One write a second per method, refused with 429 and Retry-After meanwhile (Slack's tiers are per method).
      for (const method of POSTING) h.api.enforceInterval(method, value === 'on' ? 1000 : 0, '429');
      break;
    case 'store': {
      if (was === 'frozen') h.hangStore(false);
      const bridge = h.bridge;
      if (bridge) {
        bridge.mode = 'normal';
        bridge.delayMs = 0;
      }
      if (value === 'frozen') h.hangStore(true);
      else if (value !== 'ok' && !bridge) throw new Error(`the in-process store cannot be made ${value}`);
      else if (bridge && value === 'down') bridge.mode = 'refuse';
      else if (bridge && value === 'slow') bridge.delayMs = 800;
      else if (bridge && value === 'refusing') bridge.mode = 'error-500';
      break;
    }
  }
  (state as Record<string, string>)[name] = value;
  return `${name}: ${was} -> ${value}`;
}
