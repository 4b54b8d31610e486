import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The slow fault, crash and soak runs are `npm run test:reliability`.
    exclude: ["**/node_modules/**", "test/**/*.slow.test.ts"],
    // Ceilings for a test that hangs, not expectations: a machine whose cores are busy with other
    // work takes several times as long as a quiet one, and must still pass (docs/testing.md).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two cores: more workers than that only makes PGlite start-ups fight for CPU.
    maxWorkers: 2,
    minWorkers: 1,
    // A worker keeps the modules it loaded from one test file to the next instead of loading
    // them again for each: importing Effect, the transports and PGlite was most of a small file's
    // time. No suite patches a module or the environment; state a process holds for all its ports
    // (the metrics registry) is read as a difference. Measured in docs/testing.md.
    isolate: false
  }
})
