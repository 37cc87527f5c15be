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
        // A misconfigured Worker (deployed, its secret not put yet) must not ack: Slack keeps retrying
        // while it is fixed. What is missing goes only to its own logs, which only its owner reads
        // (`npx wrangler tail`); the caller is told it is not configured, and nothing more.
        const variable = (error as { variable?: unknown }).variable;
        const fix = variable === 'SLACK_SIGNING_SECRET' || variable === 'AUTOHUB_HEALTH_TOKEN' ? { fix: `npx wrangler secret put ${variable}` } : {};
        console.error(JSON.stringify({ event: 'edge.config_invalid', message: (error as Error).message, ...fix }));
        return new Response("autohub edge: not configured yet (its owner finds why in the Worker's logs)\n", {
          status: 503,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'x-autohub-route': 'none' },
        });
      }
    }
    // ctx.waitUntil: the hint to the copy that did not ack goes out after Slack has its answer.
    return router.handle(request, ctx);
  },
};
