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

/**
 * What the process's JavaScript objects and buffers occupy, in MiB, as its own `/metrics` says
 * (`nodejs_heap_size_used_bytes` + `nodejs_external_memory_bytes`). Unlike RSS it does not
 * include the heap V8 has reserved but not filled, so its lowest value over a stretch of load
 * (just after a full collection) is what the process keeps alive: the figure a leak raises.
 */
export const liveMemoryMiB = async (metricsUrl: string): Promise<number> => {
  const text = await (await fetch(metricsUrl)).text()
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1])
  return (gauge("nodejs_heap_size_used_bytes") + gauge("nodejs_external_memory_bytes")) / 1048576
}
