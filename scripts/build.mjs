// `npm run build`: each stage once those it needs are built, saying what it does. A stage that runs
// past `graceMs` gets a line naming it, then one every `everyMs` while it runs, and its time when it
// ends: a first build (most of a first `npm start`, the README's Quick start) is never silent for
// long. A stage with nothing to do ends within the grace and prints nothing, so a build with nothing
// changed is quiet.
import { spawn } from "node:child_process"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const tsc = `${root}node_modules/typescript/bin/tsc`

/**
 * The stages: what each does in words, the command it runs, and the stages it needs first. The
 * client package and the console do not need the server: on two cores or more they compile while it does.
 */
export const stages = [
  { name: "server", doing: "compiling the server", command: ["tsc", "-b", "tsconfig.build.json"], after: [] },
  { name: "client", doing: "compiling the client package", command: ["tsc", "-b", "packages/client"], after: [] },
  { name: "console", doing: "compiling the console", command: ["tsc", "-b", "tsconfig.console.json"], after: ["client"] },
  { name: "bundle", doing: "bundling the start commands", command: ["node", "scripts/bundle-entries.mjs"], after: ["server"] },
  { name: "template", doing: "making the embedded database's template", command: ["node", "scripts/embedded-template.mjs"], after: ["server"] }
]

const seconds = (millis) => (millis / 1000).toFixed(1)

/** The lines the build prints, one place for the driver and its test. */
export const lines = {
  started: (stage) => `build: ${stage.doing} (${stage.command.join(" ")})`,
  running: (stage, millis) => `build: ${stage.doing}, ${Math.round(millis / 1000)} s so far`,
  ended: (stage, millis) => `build: ${stage.doing}: ${seconds(millis)} s`,
  failed: (stage, code) => `build: ${stage.doing} failed (exit code ${code})`,
  done: (millis) => `build: done in ${seconds(millis)} s`
}

/**
 * `run(stage)` (a promise of its exit code) for one stage, printing as above: its first line once it
 * has run `graceMs`, then one every `everyMs` from its start, and its time at its end.
 */
const stageRun = async (stage, run, { print, graceMs, everyMs }) => {
  const started = Date.now()
  let announced = false
  const grace = setTimeout(() => {
    announced = true
    print(lines.started(stage))
  }, graceMs)
  const ticker = setInterval(() => announced && print(lines.running(stage, Date.now() - started)), everyMs)
  let code
  try {
    code = await run(stage)
  } finally {
    clearTimeout(grace)
    clearInterval(ticker)
  }
  if (code !== 0) print(lines.failed(stage, code))
  else if (announced) print(lines.ended(stage, Date.now() - started))
  return { code, announced }
}

/**
 * Runs every stage once those it needs have succeeded, printing as above, and a last line with the
 * build's time when any stage was announced; answers the first non-zero exit code, or 0. A stage
 * that needs a failed one does not run. Timers and the clock are Node's, so a test can fake them.
 */
export const runStages = async (list, run, { print = console.log, graceMs = 2000, everyMs = 5000 } = {}) => {
  const buildStarted = Date.now()
  const outcomes = new Map()
  const stageOutcome = (stage) => {
    if (!outcomes.has(stage.name)) {
      outcomes.set(stage.name, (async () => {
        const needed = await Promise.all(list.filter((each) => stage.after.includes(each.name)).map(stageOutcome))
        if (needed.some((each) => each.code !== 0)) return { code: needed.find((each) => each.code !== 0).code, announced: false }
        return stageRun(stage, run, { print, graceMs, everyMs })
      })())
    }
    return outcomes.get(stage.name)
  }
  const all = await Promise.all(list.map(stageOutcome))
  const failed = all.find((each) => each.code !== 0)
  if (failed !== undefined) return failed.code
  if (all.some((each) => each.announced)) print(lines.done(Date.now() - buildStarted))
  return 0
}

/** A stage's command as a child process sharing our terminal: its errors show as they are. */
const spawnStage = (stage) =>
  new Promise((resolve) => {
    const [program, ...args] = stage.command
    const child = spawn(process.execPath, program === "tsc" ? [tsc, ...args] : args, { cwd: root, stdio: "inherit" })
    child.once("error", (error) => (console.error(error), resolve(1)))
    child.once("exit", (code) => resolve(code ?? 1))
  })

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runStages(stages, spawnStage)
}
