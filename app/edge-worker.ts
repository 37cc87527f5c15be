/**
 * The Cloudflare Worker entry: the edge router with settings from the
 * Worker's vars and secrets (wrangler.toml). One router per isolate, so the
 * hub's last-seen state lives as long as the isolate does.
 */
import { createEdgeRouter, parseEdgeSettings, type EdgeContext, type EdgeRouter } from '../lib/edge/index.js';
import { createEdgeKeeper, parseInboxSettings } from '../lib/inbox/index.js';

let router: EdgeRouter | undefined;
let routerEnv: unknown;

export default {
  async fetch(request: Request, env: Record<string, unknown>, ctx?: EdgeContext): Promise<Response> {
    if (!router || routerEnv !== env) {
      try {
        const quiet = env.EDGE_LOG === 'off';
        const settings = parseEdgeSettings(env);
        // The inbox: the shared store's secrets (UPSTASH_REDIS_REST_URL, _TOKEN) set on the Worker.
        const inboxSettings = parseInboxSettings(env);
        router = createEdgeRouter({
          settings,
          ...(inboxSettings ? { inbox: createEdgeKeeper({ settings: inboxSettings, signingSecret: settings.signingSecret }) } : {}),
          log: (event, fields) => {
            if (!quiet) console.log(JSON.stringify({ event, role: 'edge', ...fields }));
          },
        });
        routerEnv = env;
      } catch (error) {
        // A misconfigured Worker must not ack (Slack keeps retrying while it is fixed), and says why
        // only in its own logs: the caller gets a bare 500.
        console.error(JSON.stringify({ event: 'edge.config_invalid', message: (error as Error).message }));
        return new Response(null, { status: 500 });
      }
    }
    // ctx.waitUntil: the hint to the copy that did not ack goes out after Slack has its answer.
    return router.handle(request, ctx);
  },
};
