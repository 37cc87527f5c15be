/**
 * `import ... from 'autohub/bot'` in a bot, wherever its file is. Inside the
 * project's tree Node finds it by the package's own name (package.json
 * `exports`); a bot outside it (AUTOHUB_TURN=/srv/bots/mine.ts) has no
 * node_modules/autohub above it, so the specifier is resolved here, once, to
 * this copy's own contract: the bot meets the very classes the copy checks
 * its errors against, whichever build or checkout runs.
 *
 * A resolve hook of Node's own (`module.registerHooks`, in-thread, Node 22.15+):
 * it answers this one specifier and hands every other to the next resolver.
 */
import { registerHooks } from 'node:module';

/** The specifier a bot imports the contract by. */
export const BOT_CONTRACT = 'autohub/bot';

/** This copy's contract: the built JS beside a build, the TypeScript source beside the source (tsx, vitest). */
export const botContractUrl = new URL(import.meta.url.endsWith('.ts') ? '../lib/bot/index.ts' : '../lib/bot/index.js', import.meta.url).href;

let registered = false;

/** Makes `autohub/bot` resolve to this copy's contract from any bot module; once per process. */
export function exposeBotContract(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === BOT_CONTRACT) return { url: botContractUrl, format: 'module', shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}
