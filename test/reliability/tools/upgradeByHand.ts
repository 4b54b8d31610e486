/**
 * The upgrade of docs/deployment.md, run by hand with a real new version: two replicas
 * of each service behind haproxy, through PgBouncer, under load in every style with no retries;
 * a session idle in a transaction holds a lock on `profiles` for BLOCKER_SECONDS (20) while the
 * NEW version's `migrate` adds its column; then every replica is rolled onto the new version
 * (MIGRATE=off), each only once haproxy reports the one before it UP; then clients send the new
 * field. Prints one JSON line of figures (docs/reliability.md §3, replicas behind haproxy, keeps them).
 *
 *   UPGRADE_TO=/path/to/new/checkout TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *     npx vite-node test/reliability/tools/upgradeByHand.ts
 *
 * The new checkout is built (`npm run build`) and differs by a field on Profile that it sends
 * back as `nickname` (docs/adding-a-field.md) and the migration that adds it.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import { join } from "node:path"
import { promisify } from "node:util"
import pg from "pg"
import { connectClients } from "../../e2e/support/connectClient.js"
import { graphqlStyle } from "../../e2e/support/graphqlClient.js"
import { grpcJsClient } from "../../e2e/support/grpcJsClient.js"
import { restStyle } from "../../e2e/support/restClient.js"
import { stopProcess } from "../../e2e/support/Processes.js"
import { percentile, runLoad } from "../../support/Load.js"
import { systemTool } from "../../support/SystemTools.js"
import { topology } from "../../support/Topology.js"
import { auditWorkflows } from "../../support/WorkflowAudit.js"

const newCheckout = process.env["UPGRADE_TO"]
const serverUrl = process.env["TEST_DATABASE_URL"]
const blockerSeconds = Number(process.env["BLOCKER_SECONDS"] ?? 20)
const concurrency = Number(process.env["CONCURRENCY"] ?? 16)
if (newCheckout === undefined || serverUrl === undefined) {
  console.error("set UPGRADE_TO (the new version's built checkout) and TEST_DATABASE_URL (a PostgreSQL server)")
  process.exit(2)
}
const haproxy = systemTool("haproxy")
const pgbouncer = systemTool("pgbouncer")
if (haproxy === undefined || pgbouncer === undefined) {
  console.error("haproxy and pgbouncer must be installed (apt-get install haproxy pgbouncer; PATH with /usr/sbin)")
  process.exit(2)
}
const newVersion = { main: join(newCheckout, "dist", "main"), env: { MIGRATE: "off" } }

const window = (result: { latenciesMillis: Array<number>; answeredAt: Array<number> }, from: number, to: number) => {
  const inside = result.latenciesMillis.filter((_, i) => result.answeredAt[i]! >= from && result.answeredAt[i]! <= to)
  return { calls: inside.length, p50: percentile(inside, 50), p99: percentile(inside, 99), max: Math.max(0, ...inside) }
}

/** Orgs a workflow made (its name says so) that no run record accounts for: half of a workflow. */
const partialWorkflows = async (url: string) => {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from orgs o where o.name like 'onboarded %' and not exists (select 1 from onboarding_runs r where r.org_id = o.id)"
    )
    return rows[0]?.n
  } finally {
    await db.end()
  }
}

const program = Effect.gen(function*() {
  const deployed = yield* topology({ haproxy, pgbouncer }, serverUrl)
  const clients = [connectClients[0]!, connectClients[3]!, restStyle, graphqlStyle].map((style) => style.make(deployed.urls))
  clients.push(grpcJsClient(deployed.urls))
  let streaming = true
  const began = Date.now()
  const load = runLoad({ clients, concurrency, mix: ["workflow", "createOrg", "createProfile", "readBack"], running: () => streaming })
  yield* Effect.sleep("5 seconds")

  // The blocker: a report or a forgotten psql, idle in a transaction that read profiles FOR SHARE.
  const holder = new pg.Client({ connectionString: deployed.database.url })
  yield* Effect.promise(() => holder.connect())
  yield* Effect.promise(() => holder.query("begin; select * from profiles for share"))
  const blockerSince = Date.now()
  let releasedAt = 0
  const releasing = (async () => {
    await new Promise((resolve) => setTimeout(resolve, blockerSeconds * 1000))
    await holder.query("commit")
    releasedAt = Date.now()
    await holder.end()
  })()

  // Expand: the new version's migrate command, as the deploy step runs it, while the old replicas serve.
  const migrationStarted = Date.now()
  const migration = yield* Effect.promise(() =>
    promisify(execFile)(process.execPath, [join(newVersion.main, "migrate.js")], {
      env: { ...process.env, DATABASE_URL: deployed.bouncer.url }
    }).then(
      ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
      (error: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${error.stdout ?? ""}${error.stderr ?? ""}` })
    )
  )
  const migrationEnded = Date.now()
  yield* Effect.promise(() => releasing)

  // Roll: each replica onto the new version, the next only once haproxy reports it UP. Halfway, an
  // old replica is asked directly to store the new field: it must refuse it, not drop it.
  const rollStarted = Date.now()
  let oldReplicaAnswer = ""
  for (const [index, replica] of deployed.replicas.entries()) {
    if (index === 2) {
      const old = deployed.replicas.find((r) => r.service === "profile" && r !== replica && deployed.replicas.indexOf(r) > index)
      if (old !== undefined) {
        const response = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${old.port}/profiles/${randomUUID()}`, {
            method: "PUT",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ fullName: "Mixed Period", orgId: randomUUID(), nickname: "Mix" })
          }).then(async (r) => `${r.status} ${await r.text()}`)
        )
        oldReplicaAnswer = response
      }
    }
    yield* Effect.promise(() => stopProcess(replica.running!))
    yield* Effect.promise(() => deployed.start(replica, newVersion))
    yield* deployed.awaitState(replica, "UP")
  }
  const rollEnded = Date.now()
  yield* Effect.sleep("3 seconds")
  streaming = false
  const result = yield* Effect.promise(() => load)

  // Then clients send the new field: through haproxy, every replica stores it.
  const nicknames = yield* Effect.promise(() =>
    Promise.all(Array.from({ length: 20 }, async () => {
      const id = randomUUID()
      const put = await fetch(`${deployed.urls.profile}/profiles/${id}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fullName: "After The Roll", orgId: randomUUID(), nickname: "Roll" })
      })
      const got = (await (await fetch(`${deployed.urls.profile}/profiles/${id}`)).json()) as { profile?: { nickname?: string } }
      return put.status === 200 && got.profile?.nickname === "Roll"
    }))
  )
  clients.forEach((client) => client.close?.())
  const audit = yield* Effect.promise(() => auditWorkflows(deployed.database.url, result.acknowledged))
  const workflows = result.acknowledged.filter((a) => a.kind === "workflow").length
  const orgs = result.acknowledged.filter((a) => a.kind === "org").length
  console.log(JSON.stringify({
    replicas: deployed.replicas.length,
    concurrentCallers: concurrency,
    styles: clients.map((c) => c.style),
    seconds: Math.round((Date.now() - began) / 1000),
    requests: result.requests,
    failed: result.failures.length,
    failures: result.failures.slice(0, 10),
    blockerHeldMs: releasedAt - blockerSince,
    migrationLockTimeouts: migration.output.split("\n").filter((line) => line.includes("pid ")).length,
    migration: { ok: migration.ok, ms: migrationEnded - migrationStarted, output: migration.output.trim().split("\n") },
    duringMigration: window(result, migrationStarted, migrationEnded),
    duringRoll: window(result, rollStarted, rollEnded),
    whole: window(result, began, Date.now()),
    oldReplicaAskedForNickname: oldReplicaAnswer,
    nicknameStoredAfterRoll: `${nicknames.filter(Boolean).length} of ${nicknames.length}`,
    acknowledgedWorkflowsMissing: workflows - audit.complete,
    acknowledgedOrgsMissing: orgs - audit.orgsStored,
    acknowledgedTwice: audit.duplicated,
    partialWorkflows: yield* Effect.promise(() => partialWorkflows(deployed.database.url))
  }, null, 1))
}).pipe(Effect.scoped)

await Effect.runPromise(program)
process.exit(0)
