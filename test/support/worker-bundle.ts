/** The Worker entry bundled to one ES module, as wrangler would, for miniflare's workerd. */
import { build } from 'esbuild';

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
