import { execFileSync, spawnSync } from "node:child_process"

const has = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0

/**
 * The load generators are Debian packages: found on PATH, or installed with apt-get when this user
 * may (root, as on the project's machines); otherwise the user is told what to install.
 */
export const ensureTools = (needPgbench: boolean) => {
  const wanted: Array<[string, string]> = [["wrk", "wrk"], ["h2load", "nghttp2-client"]]
  if (needPgbench) wanted.push(["pgbench", "postgresql-client"])
  const missing = wanted.filter(([command]) => !has(command))
  if (missing.length === 0) return
  const packages = missing.map(([, pkg]) => pkg)
  if (process.getuid?.() === 0 && has("apt-get")) {
    process.stderr.write(`installing ${packages.join(", ")} with apt-get\n`)
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
    execFileSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "inherit" })
    return
  }
  throw new Error(`missing ${missing.map(([c]) => c).join(", ")}: install the Debian packages ${packages.join(" ")}`)
}
