import { mkdirSync, readFileSync, writeFileSync } from "node:fs"

/**
 * Records a reliability run's figures: printed, and written to `reports/` (not committed) so the
 * numbers in docs/reliability.md can be traced to a run.
 */
export const recordFigures = (name: string, figures: Record<string, unknown>) => {
  const directory = new URL("../../reports/", import.meta.url)
  mkdirSync(directory, { recursive: true })
  writeFileSync(new URL(`${name}.json`, directory), JSON.stringify(figures, null, 2) + "\n")
  console.log(`${name}: ${JSON.stringify(figures)}`)
}

/** Resident set size of a process, in MiB, from /proc. */
export const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
}
