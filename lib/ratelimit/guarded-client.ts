/**
 * One WebClient per copy, and per turn a view of it whose every request
 * passes the turn's guard (its fence) right before it leaves.
 *
 * A WebClient binds each of its ~280 API methods to itself when it is made
 * (about 50 us of CPU and as many closures for the GC); one made per turn
 * cost that on every turn. A view costs an object: it inherits the copy's
 * client (its token, headers, request queue, logger) and has only a `fetchFn`
 * of its own, the rate-limit fetch with the turn's guard. Its method
 * namespaces (`chat`, `assistant.threads`, ...) are built on first use, each
 * method calling `apiCall` on the view, so every call, whatever its path,
 * goes out through the view's fetch: none can reach the copy's unguarded one.
 * The prototype methods (`apiCall`, `paginate`, `chatStream`,
 * `filesUploadV2`) run on the view as they are.
 */
import type { WebClient } from '@slack/web-api';
import type { SendGuard } from './rate-limit-fetch.js';

/** A namespace of the client: method names to leaves (true) or to deeper namespaces. */
interface Tree {
  [name: string]: Tree | true;
}

/**
 * What web-api's Methods binds each API method as (`self.apiCall.bind(self, method)`,
 * `self.filesUploadV2.bind(self)`): a function of the client's own fields that is
 * anything else (its logger's, say) is not an API method.
 */
const API_METHOD = new Set(['bound apiCall', 'bound filesUploadV2']);

/** The shape of a client's method namespaces, read once per copy from the client itself. */
function treeOf(value: Record<string, unknown>): Tree {
  const tree: Tree = {};
  for (const [name, member] of Object.entries(value)) {
    if (typeof member === 'function') {
      if (API_METHOD.has(member.name)) tree[name] = true;
    } else if (typeof member === 'object' && member !== null && !Array.isArray(member)) {
      const inner = treeOf(member as Record<string, unknown>);
      if (Object.keys(inner).length > 0) tree[name] = inner;
    }
  }
  return tree;
}

/** A namespace for `view`: each method calls `apiCall` with its full name (`admin.apps.approved.list`) on the view. */
function namespace(view: WebClient, tree: Tree, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(tree)) {
    const method = `${path}.${name}`;
    out[name] = node === true ? (options?: Record<string, unknown>) => view.apiCall(method, options) : namespace(view, node, method);
  }
  return out;
}

/**
 * Views of `client` for turns: `viewFor(guard)` is a WebClient whose every
 * request passes `guard` right before it leaves (`fenced(guard)` is the
 * fetch it sends through). The client's other fields (`token`, `logger`, ...)
 * are inherited as they are.
 */
export function guardedClients(client: WebClient, fenced: (guard: SendGuard) => typeof fetch): (guard: SendGuard) => WebClient {
  const own = client as unknown as Record<string, unknown>;
  const trees = Object.entries(treeOf(own)).filter(([, node]) => node !== true) as Array<[string, Tree]>;
  const proto = Object.create(client) as WebClient;
  for (const [name, tree] of trees) {
    Object.defineProperty(proto, name, {
      configurable: true,
      get(this: WebClient) {
        const ns = namespace(this, tree, name);
        Object.defineProperty(this, name, { value: ns, enumerable: true });
        return ns;
      },
    });
  }
  return (guard) => {
    const view = Object.create(proto) as WebClient;
    // WebClient's makeRequest sends through `this.fetchFn` (private in its types, the option `fetch` at construction).
    (view as unknown as { fetchFn: typeof fetch }).fetchFn = fenced(guard);
    return view;
  };
}
