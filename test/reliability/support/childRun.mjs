// What a raw attacker run as a child process (h2RawAttacker.mjs, h2SlowConnections.mjs) is told
// and how it stops. Its options are JSON, the first argument. Bounded: `maxMillis` ends the run
// whatever happens, and "stop" on stdin ends it early (a closed stdin does not: a run by hand may
// have none). Progress lines and the final report are JSON on stdout, one object per line.

export const options = JSON.parse(process.argv[2] ?? "{}")
export const target = new URL(options.url)
export const started = Date.now()

export const stopping = new Promise((resolve) => {
  const timer = setTimeout(resolve, options.maxMillis ?? 30_000)
  process.stdin.on("data", (text) => String(text).includes("stop") && resolve(clearTimeout(timer)))
})
/** True once `stopping` has resolved (a live binding: importers see it change). */
export let stopped = false
stopping.then(() => (stopped = true))

export const report = (object) => process.stdout.write(`${JSON.stringify(object)}\n`)
