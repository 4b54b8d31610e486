export const usage = `npm run bench [-- options]

Measures every operation in every style (Connect JSON, Connect binary, gRPC, REST, GraphQL):
requests/s and p50/p99 latency per concurrency, CPU per request, memory and start-up time of each
process, and holds each row to its peer, the minimal Effect service on the same libraries doing the
same statements with nothing of ours (issue 28). With DATABASE_URL (a PostgreSQL server; the
benchmark creates and drops its own database there) it runs one process per service and the
baselines, --quick included; ours, the traced org process and (d), (f), (g), (h) stay up together
and each scenario is measured on them back to back. The peers the targets name: (d) HttpRouter +
@effect/sql-pg, REST's; (f) connect-node + @effect/sql-pg through a ManagedRuntime, the peer of
Connect JSON, Connect binary and gRPC; (g) graphql-js + @effect/sql-pg through a ManagedRuntime,
GraphQL's. Reported beside them, not targeted: (h) the REST service as Effect-TS/examples'
http-server writes it (HttpApi + SqlSchema repositories + @effect/sql-pg), the idiomatic Effect
peer; (a) node:http + pg, Node's floor; (b) connect-node + pg and (e) graphql-js + pg, the
hand-written peers; (c) pgbench. The org process is run a second time with OTLP export configured
(every call sampled, to a sink in the benchmark), loaded beside the untraced one, and its CPU per
call at concurrency 1 held to the untraced one's (needs concurrency 1). The all-in-one process on
the embedded database is started on a new data directory, then again on the same one, which is
measured (not with --quick when DATABASE_URL is set).
Needs wrk, h2load (Debian: wrk, nghttp2-client) and, with DATABASE_URL, pgbench.

Options:
  --quick           concurrency 64 only, 1 s per measurement, embedded only without DATABASE_URL
                    (about 4 min with DATABASE_URL; it measures no p99 at c16)
  --seconds=N       seconds per measurement (default 3)
  --warmup=N        seconds of warm-up per scenario (default 2, 1 with --quick; whole seconds for wrk)
  --concurrency=L   comma-separated list (default 1,16,64)
  --only=REGEX      only scenarios whose "<Operation> <style>" matches, e.g. --only='GetOrg (rest|grpc)',
                    and the baselines' that are their peers ((d), (f), (g), (h), and (b), (e)) or (a)'s floor
  --no-embedded     skip the all-in-one embedded run
  --no-baselines    skip the baselines (to compare two builds of the services; no peer ratios then)
  --help            this text

Environment: DATABASE_URL, DATABASE_POOL_SIZE (default 10, for the services and baselines alike).
The tables and the targets (goal and must apart; a target missed does not fail the run, a failed
request does) are printed and saved with the raw figures under reports/.`

export interface Options {
  readonly quick: boolean
  readonly seconds: number
  readonly warmupSeconds: number
  readonly concurrencies: ReadonlyArray<number>
  readonly only: RegExp | undefined
  readonly embedded: boolean
  readonly baselines: boolean
}

export const parseOptions = (args: ReadonlyArray<string>): Options | "help" => {
  if (args.includes("--help") || args.includes("-h")) return "help"
  const value = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
  const known = /^--(quick|no-embedded|no-baselines|seconds=.+|warmup=.+|concurrency=.+|only=.+)$/
  const unknown = args.filter((a) => !known.test(a))
  if (unknown.length > 0) {
    console.error(`unknown option ${unknown.join(" ")}\n\n${usage}`)
    process.exit(2)
  }
  const quick = args.includes("--quick")
  const hasServer = (process.env["DATABASE_URL"] ?? "") !== ""
  const number = (name: string, fallback: number) => {
    const text = value(name)
    const n = text === undefined ? fallback : Number(text)
    if (!(n > 0)) {
      console.error(`--${name} must be a positive number`)
      process.exit(2)
    }
    return n
  }
  const only = value("only")
  return {
    quick,
    seconds: number("seconds", quick ? 1 : 3),
    warmupSeconds: number("warmup", quick ? 1 : 2),
    concurrencies: (value("concurrency") ?? (quick ? "64" : "1,16,64")).split(",").map(Number),
    only: only === undefined ? undefined : new RegExp(only),
    embedded: !args.includes("--no-embedded") && !(quick && hasServer),
    baselines: !args.includes("--no-baselines")
  }
}
