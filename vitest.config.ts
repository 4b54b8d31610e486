import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The slow fault, crash and soak runs are `npm run test:reliability`.
    exclude: ["**/node_modules/**", "test/**/*.slow.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only makes PGlite start-ups fight for CPU.
    maxWorkers: 2,
    minWorkers: 1
  }
})
