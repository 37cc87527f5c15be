import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A bot's `import ... from 'autohub/bot'` reads the sources here, as tsconfig.json's paths do (package.json's
  // exports name the build, which a test run does not need).
  resolve: { alias: { 'autohub/bot': fileURLToPath(new URL('./lib/bot/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // Bounds that only end a hung test: a copy's tsx start on CI's two loaded cores took over 20 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration files start their own redis-server and HTTP servers; two
    // cores run two files at a time without starving the timing bounds.
    maxWorkers: 2,
  },
});
