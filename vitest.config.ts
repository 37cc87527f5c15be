import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A bot's `import ... from 'autohub/bot'` reads the sources here, as tsconfig.json's paths do (package.json's
  // exports name the build, which a test run does not need).
  resolve: { alias: { 'autohub/bot': fileURLToPath(new URL('./lib/bot/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration files start their own redis-server and HTTP servers; two
    // cores run two files at a time without starving the timing bounds.
    maxWorkers: 2,
  },
});
