/** The Worker entry bundled to one ES module, as wrangler would, for miniflare's workerd. */
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/** wrangler.toml's `compatibility_date`, so the tests run the Worker under the date it is deployed with. */
export const WORKER_COMPATIBILITY_DATE =
  /^compatibility_date = "(\d{4}-\d{2}-\d{2})"$/m.exec(readFileSync('wrangler.toml', 'utf8'))?.[1] ?? 'wrangler.toml has no compatibility_date';

export async function bundleWorker(): Promise<string> {
  const result = await build({
    entryPoints: ['app/edge-worker.ts'],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    mainFields: ['module', 'main'],
  });
  return result.outputFiles[0]!.text;
}
