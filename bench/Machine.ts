import { spawnSync } from "node:child_process"
import { cpus, totalmem } from "node:os"

// Some tools print their version on stderr, or exit non-zero after printing it (wrk -v).
const version = (command: string, args: ReadonlyArray<string>, pattern: RegExp) => {
  const run = spawnSync(command, args, { encoding: "utf8" })
  return pattern.exec(`${run.stdout ?? ""}${run.stderr ?? ""}`)?.[1] ?? "not found"
}

/** What the figures were measured on: they mean little without it. */
export const machine = async (): Promise<string> =>
  [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ` +
    `Node ${process.version}; PostgreSQL server ${version("psql", ["--version"], /(\d+\.\d+)/)}; ` +
    `wrk ${version("wrk", ["-v"], /wrk (?:debian\/)?([\d.]+)/)}; h2load ${version("h2load", ["--version"], /nghttp2\/([\d.]+)/)}; ` +
    `pgbench ${version("pgbench", ["--version"], /(\d+\.\d+)/)}.`
  ].join("\n")
