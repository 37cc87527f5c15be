import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration files start their own redis-server and HTTP servers; two
    // cores run two files at a time without starving the timing bounds.
    maxWorkers: 2,
  },
});
