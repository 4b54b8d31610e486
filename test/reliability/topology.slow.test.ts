import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, LogLevel, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import * as Database from "../../src/services/database/Database.js"
import { migrate } from "../../src/services/database/Migrations.js"
import { everyMigrationWith } from "../support/migrations.js"
import { connectClients } from "../e2e/support/connectClient.js"
import { unwrapped } from "../e2e/support/conformance/Cell.js"
import { firstSuccesses } from "../e2e/support/conformance/Table.js"
import { graphqlStyle } from "../e2e/support/graphqlClient.js"
import { grpcJsClient } from "../e2e/support/grpcJsClient.js"
import { restStyle } from "../e2e/support/restClient.js"
import { stopProcess } from "../e2e/support/Processes.js"
import type { StyleClient } from "../e2e/support/StyleClient.js"
import { recordFigures } from "../support/Figures.js"
import { type LoadResult, runLoad } from "../support/Load.js"
import { retryingWorkflows } from "../support/RetryingWorkflows.js"
import { systemTool } from "../support/SystemTools.js"
import { serverUrl } from "../support/TestDatabase.js"
import { services, topology, type Topology } from "../support/Topology.js"
import { auditWorkflows } from "../support/WorkflowAudit.js"

if (serverUrl === undefined) {
  console.warn("the haproxy + PgBouncer topology test needs PostgreSQL: set TEST_DATABASE_URL to run it")
}
// Asked only when the test can run: on the embedded run it skips for want of PostgreSQL anyway.
const tools = serverUrl === undefined ? undefined : { haproxy: systemTool("haproxy"), pgbouncer: systemTool("pgbouncer") }
const runnable = tools?.haproxy !== undefined && tools.pgbouncer !== undefined

class Deployed extends Effect.Tag("topology/Deployed")<Deployed, Topology>() {}

const period = { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" }

/** One of each service's calls in one style, through haproxy: a create and a read of it back. */
const roundTrip = async (client: StyleClient) => {
  const org = await client.createOrg({ id: randomUUID(), name: `styles ${client.style}` })
  const profile = await client.createProfile({ id: randomUUID(), fullName: "Style Check", orgId: org.id })
  const license = await client.createLicense({ id: randomUUID(), userId: profile.id, ...period })
  const workflow = await client.createWorkflow({ license: period, org: { name: `styles ${client.style}` }, profile: { fullName: "New Hire" } })
  return [
    (await client.getOrg(org.id)).name === org.name,
    (await client.getProfile(profile.id)).orgId === org.id,
    (await client.getLicense(license.id)).userId === profile.id,
    (await client.getWorkflow(workflow.workflowId)).orgId === workflow.orgId
  ]
}

/** Every replica in turn: SIGTERM, started again, and the next only once haproxy reports it UP. */
const rollEveryReplica = (deployed: Topology) =>
  Effect.gen(function*() {
    const exitCodes: Array<number | null> = []
    const restarts: Array<number> = []
    for (const replica of deployed.replicas) {
      const began = Date.now()
      exitCodes.push(yield* Effect.promise(() => stopProcess(replica.running!)))
      yield* Effect.promise(() => deployed.start(replica))
      yield* deployed.awaitState(replica, "UP")
      restarts.push(Date.now() - began)
    }
    return { exitCodes, restarts }
  })

/** A stopped load's result, its clients closed, and the database's audit of what it acknowledged. */
const audited = (deployed: Topology, clients: ReadonlyArray<StyleClient>, load: Promise<LoadResult>) =>
  Effect.gen(function*() {
    const result = yield* Effect.promise(() => load)
    clients.forEach((client) => client.close?.())
    const audit = yield* Effect.promise(() => auditWorkflows(deployed.database.url, result.acknowledged))
    const workflows = result.acknowledged.filter((a) => a.kind === "workflow").length
    const orgs = result.acknowledged.filter((a) => a.kind === "org").length
    return { result, audit, workflows, orgs }
  })

describe.skipIf(!runnable)("two replicas of each service behind haproxy, through PgBouncer (transaction pooling)", () => {
  layer(Layer.scoped(Deployed, Effect.suspend(() => topology({ haproxy: tools!.haproxy!, pgbouncer: tools!.pgbouncer! }, serverUrl!))), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("all eight replicas, started at once on an empty database, answer every style through haproxy", () =>
      Effect.gen(function*() {
        const deployed = yield* Deployed
        const styles = [connectClients[0]!.make(deployed.urls), restStyle.make(deployed.urls), grpcJsClient(deployed.urls)]
        styles.push(connectClients[6]!.make(deployed.urls), graphqlStyle.make(deployed.urls))
        for (const client of styles) {
          expect([client.style, ...(yield* Effect.promise(() => roundTrip(client)))]).toEqual([client.style, true, true, true, true])
          client.close?.()
        }
        // Both replicas of each service took part: haproxy balances each request, not each connection.
        const states = yield* Effect.promise(() => deployed.haproxy.serverStates())
        const replicas = services.flatMap((s) => [`${s}/0`, `${s}/1`])
        expect(Object.keys(states).sort()).toEqual([...replicas].sort())
        for (const replica of replicas) expect([replica, states[replica]!.requests > 0]).toEqual([replica, true])
      }))

    it.effect("every cell of the conformance table answers through haproxy, /rpc over HTTP/2 among them", () =>
      Effect.gen(function*() {
        const deployed = yield* Deployed
        for (const { answer, cell, expected, tag } of yield* Effect.promise(() => firstSuccesses(deployed.urls))) {
          expect({ cell, tag, reply: answer.ok ? unwrapped(answer.reply) : answer }).toMatchObject({ cell, tag, reply: expected })
        }
      }))

    it.effect("kill -9 of a workflow replica: every acknowledged workflow exists once and complete", () =>
      Effect.gen(function*() {
        const deployed = yield* Deployed
        const victim = deployed.replicas.find((r) => r.name === "workflow/0")!
        const clients = [connectClients[0]!, restStyle, connectClients[6]!].map((style) => style.make(deployed.urls))
        // The style check above made orgs, profiles and licenses of its own: count what this adds.
        const before = yield* Effect.promise(() => auditWorkflows(deployed.database.url, []))
        let streaming = true
        const run = retryingWorkflows({ clients, concurrency: 8, running: () => streaming })
        yield* Effect.sleep("1500 millis")
        victim.running!.child.kill("SIGKILL")
        yield* Effect.promise(() => victim.running!.exited)
        yield* Effect.sleep("1 second")
        yield* Effect.promise(() => deployed.start(victim))
        yield* deployed.awaitState(victim, "UP")
        yield* Effect.sleep("1500 millis")
        streaming = false
        const result = yield* Effect.promise(() => run)
        clients.forEach((client) => client.close?.())

        const audit = yield* Effect.promise(() => auditWorkflows(deployed.database.url, result.acknowledged))
        recordFigures("topology-kill9", {
          replicas: deployed.replicas.length,
          killed: victim.name,
          concurrentClients: 8,
          workflowsSent: result.sent,
          acknowledged: result.acknowledged.length,
          attempts: result.attempts,
          retriedAttempts: result.retried,
          finalFailures: result.failures.length,
          attemptErrorRate: result.retried / result.attempts,
          finalFailureRate: result.failures.length / result.sent,
          errorsSeen: result.errorsSeen,
          acknowledgedCompleteInDatabase: audit.complete,
          acknowledgedTwice: audit.duplicated,
          rowsWithoutRunRecordAdded: {
            orgs: audit.orphans.orgs - before.orphans.orgs,
            profiles: audit.orphans.profiles - before.orphans.profiles,
            licenses: audit.orphans.licenses - before.orphans.licenses
          },
          runRecordsAdded: audit.orphans.runs - before.orphans.runs
        })
        expect(result.acknowledged.length).toBeGreaterThan(0)
        expect(result.failures).toEqual([])
        expect(audit.complete).toBe(result.acknowledged.length)
        expect(audit.duplicated).toBe(0)
        expect(audit.orphans).toMatchObject({ orgs: before.orphans.orgs, profiles: before.orphans.profiles, licenses: before.orphans.licenses })
      }))

    it.effect("an upgrade under load: a migration behind a session idle in a transaction, then a rolling restart: zero failed calls", () =>
      Effect.gen(function*() {
        const deployed = yield* Deployed
        // No client retries: every failure counts.
        const clients = [connectClients[0]!, restStyle, graphqlStyle].map((style) => style.make(deployed.urls))
        clients.push(grpcJsClient(deployed.urls))
        let streaming = true
        const load = runLoad({ clients, concurrency: 8, mix: ["workflow", "createOrg", "createProfile", "readBack"], running: () => streaming })
        yield* Effect.sleep("1 second")
        // A report, a console or a forgotten psql: a session idle in a transaction that has read
        // profiles FOR SHARE, straight on PostgreSQL, as the migration goes.
        const holder = new pg.Client({ connectionString: deployed.database.url })
        yield* Effect.promise(() => holder.connect())
        const { rows } = yield* Effect.promise(() => holder.query<{ pid: number }>("select pg_backend_pid() as pid"))
        yield* Effect.promise(() => holder.query("begin; select * from profiles for share"))
        // The expand step of the upgrade: the new version's column, applied by the deploy step
        // (`migrate`, in-process here with a directory of the test's own) while the old replicas serve.
        const dir = yield* everyMigrationWith({ "0099_profile_nickname.sql": "alter table profiles add column nickname text;" })
        const warnings: Array<string> = []
        const migrating = yield* Effect.fork(
          Effect.provide(migrate(dir), Database.layer({ kind: "postgres", url: Redacted.make(deployed.database.url), poolSize: 1 })).pipe(
            Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message }) => {
              if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) warnings.push(String(message))
            })))
          )
        )
        // The blocker holds on until the migration has given way three times, under load all along.
        while (warnings.length < 3) yield* Effect.sleep("100 millis")
        yield* Effect.promise(() => holder.query("commit"))
        yield* Effect.promise(() => holder.end())
        const applied = yield* Fiber.join(migrating)
        yield* rollEveryReplica(deployed)
        streaming = false
        const { audit, orgs, result, workflows } = yield* audited(deployed, clients, load)
        recordFigures("topology-upgrade", {
          concurrentClients: 8,
          styles: clients.map((c) => c.style),
          requests: result.requests,
          acknowledgedCreates: result.acknowledged.length,
          failedRequests: result.failures.length,
          failures: result.failures.slice(0, 10),
          migrationGaveWay: warnings.length,
          blocker: rows[0]!.pid,
          applied: applied.map(({ id, name }) => `${id}_${name}`),
          acknowledgedWorkflowsMissing: workflows - audit.complete,
          acknowledgedOrgsMissing: orgs - audit.orgsStored
        })
        expect({
          failures: result.failures,
          applied: applied.map(({ id }) => id),
          namedTheBlocker: warnings.every((line) => line.includes(`pid ${rows[0]!.pid}`)),
          workflowsMissing: workflows - audit.complete,
          orgsMissing: orgs - audit.orgsStored
        }).toEqual({ failures: [], applied: [99], namedTheBlocker: true, workflowsMissing: 0, orgsMissing: 0 })
        expect(result.acknowledged.length).toBeGreaterThan(0)
      }).pipe(Effect.scoped))

    it.effect("rolling restart (SIGTERM each replica in turn): zero failed calls", () =>
      Effect.gen(function*() {
        const deployed = yield* Deployed
        // No client retries: every failure counts.
        const clients = [connectClients[0]!, connectClients[3]!, restStyle, graphqlStyle].map((style) => style.make(deployed.urls))
        clients.push(grpcJsClient(deployed.urls))
        let streaming = true
        const load = runLoad({ clients, concurrency: 8, mix: ["workflow", "createOrg", "readBack"], running: () => streaming })
        const { exitCodes, restarts } = yield* rollEveryReplica(deployed)
        streaming = false
        const { audit, orgs, result, workflows } = yield* audited(deployed, clients, load)
        recordFigures("topology-rolling-restart", {
          replicasRestarted: deployed.replicas.length,
          concurrentClients: 8,
          styles: clients.map((c) => c.style),
          requests: result.requests,
          acknowledgedCreates: result.acknowledged.length,
          failedRequests: result.failures.length,
          failures: result.failures.slice(0, 10),
          exitCodes,
          millisPerReplicaRestart: restarts,
          acknowledgedWorkflowsMissing: workflows - audit.complete,
          acknowledgedOrgsMissing: orgs - audit.orgsStored
        })
        expect(exitCodes).toEqual(deployed.replicas.map(() => 0))
        expect(result.failures).toEqual([])
        expect(result.acknowledged.length).toBeGreaterThan(0)
        expect([audit.complete, audit.orgsStored]).toEqual([workflows, orgs])
      }))
  })
})
