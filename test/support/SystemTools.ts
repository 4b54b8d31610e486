import { execFileSync } from "node:child_process"

/**
 * A system binary a test needs (prometheus, chromium, haproxy, ...): its path, or undefined when
 * it is not installed, so that the test can skip with a clear message on a laptop. `.ci/run`
 * installs each one and sets REQUIRE_SYSTEM_TOOLS=1, under which a missing binary fails the suite
 * instead: a skip there would hide a test that never ran.
 */
export const systemTool = (name: string): string | undefined => {
  let path: string | undefined
  try {
    path = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || undefined
  } catch {
    path = undefined
  }
  if (path === undefined && process.env["REQUIRE_SYSTEM_TOOLS"] === "1") {
    throw new Error(`${name} is not installed, and REQUIRE_SYSTEM_TOOLS=1 (CI) does not allow its tests to skip`)
  }
  if (path === undefined) console.warn(`${name} is not installed: its tests are skipped (apt-get install ${name})`)
  return path
}
