import { defineConfig } from "vitest/config"

// `npm run test:containers`: the image and compose.yaml in docker (test/containers), one file, its
// tests in order over the one set of containers its setup starts.
export default defineConfig({
  test: {
    include: ["test/containers/**/*.slow.test.ts"],
    testTimeout: 240_000,
    // The setup builds the image: with a new lock file, `npm ci` twice.
    hookTimeout: 1_500_000,
    fileParallelism: false,
    maxWorkers: 1,
    minWorkers: 1
  }
})
