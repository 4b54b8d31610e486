import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only makes PGlite start-ups fight for CPU.
    maxWorkers: 2,
    minWorkers: 1
  }
})
