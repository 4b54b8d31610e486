import { timestampFromDate } from "@bufbuild/protobuf/wkt"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { CreateOrgRequestSchema } from "../../src/gen/org/v1beta1/org_pb.js"
import { CreateOnboardingWorkflowRequestSchema } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { DatabaseHealthLive } from "../../src/services/database/DatabaseHealth.js"
import { unitOfWorkReferences } from "../../src/services/database/Transient.js"
import { Licenses } from "../../src/services/Licenses.js"
import { Onboarding } from "../../src/services/Onboarding.js"
import { WorkflowRuns } from "../../src/services/WorkflowRuns.js"
import { Orgs } from "../../src/services/Orgs.js"
import { Profiles } from "../../src/services/Profiles.js"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { SqlServices } from "../support/SqlServices.js"
import { rowCounts } from "../support/rows.js"
import { TestDatabase, testDatabaseKind } from "../support/TestDatabase.js"
import { type Answer, envelope, grpcJsCall, grpcRaw, httpCall, protoBytes } from "./support/wire.js"

/**
 * Deadlines at their extremes (gRPC `grpc-timeout`, Connect `connect-timeout-ms`): whatever the
 * answer, it must agree with what the database holds. A success with the row stored, or an error
 * with nothing stored; never an error for a write that committed, since a client that retries
 * after that error (a workflow without a workflow id) creates a second onboarding.
 */

const createOrg = "org.v1beta1.OrgService/CreateOrg"
const createWorkflow = "workflow.v1beta1.WorkflowService/CreateOnboardingWorkflow"

/** How long each org insert of a workflow's transaction is held up, in the slowed-database suite. */
const orgDelay = Duration.millis(600)

const orgStored = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select count(*)::int as n from orgs where id = ${id}`)
    .pipe(Effect.map((rows) => rows[0]!.n === 1))

const isSuccess = (answer: Answer) => answer.code === "ok" || answer.code === 0

/**
 * After an error answer, work that was not stopped may still be on its way to a commit: the
 * database is read once it has had time to finish (the slowest work here takes `orgDelay`).
 */
const settled = (answer: Answer) => isSuccess(answer) ? Effect.void : Effect.sleep(Duration.sum(orgDelay, "1 second"))

/** The answer and the database agree. */
const agrees = (answer: Answer, stored: boolean) =>
  expect({ answered: isSuccess(answer) ? "success" : `error ${answer.code}: ${answer.message}`, stored }).toEqual(
    stored ? { answered: "success", stored } : { answered: expect.stringMatching(/^error/), stored }
  )

const grpcCreateOrg = (baseUrl: string, id: string, timeout: string) =>
  grpcRaw(baseUrl, createOrg, envelope(protoBytes(CreateOrgRequestSchema, { id, name: "Acme" })), {
    "grpc-timeout": timeout
  })

const connectCreateOrg = (baseUrl: string, id: string, timeoutMs: string) =>
  httpCall(`${baseUrl}/${createOrg}`, {
    headers: { "content-type": "application/json", "connect-timeout-ms": timeoutMs },
    body: JSON.stringify({ id, name: "Acme" })
  }).then((reply): Answer => ({
    status: reply.status,
    code: reply.status === 200 ? "ok" : reply.json?.code,
    message: reply.json?.message ?? ""
  }))

const workflowJson = () => ({
  license: { start: "2023-11-16T12:00:00Z", end: "2024-11-16T12:00:00Z" },
  org: { name: "Initech" },
  profile: { fullName: "Peter Gibbons" }
})

const workflowProto = () =>
  protoBytes(CreateOnboardingWorkflowRequestSchema, {
    license: {
      start: timestampFromDate(new Date("2023-11-16T12:00:00Z")),
      end: timestampFromDate(new Date("2024-11-16T12:00:00Z"))
    },
    org: { name: "Initech" },
    profile: { fullName: "Peter Gibbons" }
  })

/** A CreateOrg with `timeout` answers in agreement with the database. */
const orgCall = (send: (baseUrl: string, id: string) => Promise<Answer>, want?: "success") =>
  Effect.gen(function*() {
    const { org } = yield* Services
    const id = randomUUID()
    const answer = yield* Effect.promise(() => send(org, id))
    yield* settled(answer)
    const stored = yield* orgStored(id)
    agrees(answer, stored)
    if (want === "success") expect(answer.code).toSatisfy((code) => code === "ok" || code === 0)
  })

/** A workflow answers in agreement with the database: all four rows on success, none on an error. */
const workflowCall = (send: (baseUrl: string) => Promise<Answer>) =>
  Effect.gen(function*() {
    const { workflow } = yield* Services
    const before = yield* rowCounts
    const answer = yield* Effect.promise(() => send(workflow))
    yield* settled(answer)
    const after = yield* rowCounts
    const written = after.runs - before.runs
    agrees(answer, written > 0)
    expect(after).toEqual({
      orgs: before.orgs + written,
      profiles: before.profiles + written,
      licenses: before.licenses + written,
      runs: before.runs + written
    })
    return answer
  })

describe(`deadlines beyond what a timer holds (${testDatabaseKind})`, () => {
  layer(inProcessServers({}, SqlServices), { timeout: 60_000, excludeTestServices: true })((it) => {
    // 597 hours is the first whole number of hours above 2^31-1 ms, where setTimeout fires at once.
    for (const timeout of ["597H", "99999999H", "2147484S"]) {
      it.effect(`gRPC (raw HTTP/2) grpc-timeout ${timeout}: the write succeeds`, () =>
        orgCall((url, id) => grpcCreateOrg(url, id, timeout), "success"))
    }

    it.effect("gRPC (@grpc/grpc-js) with a deadline 597 hours away: the write succeeds", () =>
      orgCall(
        (url, id) =>
          grpcJsCall(url, createOrg, { message: { id, name: "Acme" } }, { deadline: Date.now() + 597 * 3_600_000 }),
        "success"
      ))

    for (const timeoutMs of ["9999999999", "2147483648"]) {
      it.effect(`Connect JSON connect-timeout-ms ${timeoutMs}: the write succeeds`, () =>
        orgCall((url, id) => connectCreateOrg(url, id, timeoutMs), "success"))
    }

    // Deadlines that pass at once: refused before anything runs, or run to their real outcome.
    for (const timeout of ["1n", "1u", "1m"]) {
      it.effect(`gRPC (raw HTTP/2) grpc-timeout ${timeout}: the answer matches the database`, () =>
        orgCall((url, id) => grpcCreateOrg(url, id, timeout)))
    }
    it.effect("gRPC (raw HTTP/2), a deadline that passes before the message arrives: DEADLINE_EXCEEDED, nothing written", () =>
      Effect.gen(function*() {
        const { org } = yield* Services
        const id = randomUUID()
        const body = envelope(protoBytes(CreateOrgRequestSchema, { id, name: "Acme" }))
        const answer = yield* Effect.promise(() => grpcRaw(org, createOrg, body, { "grpc-timeout": "50m" }, 300))
        expect(answer.code).toBe(4)
        yield* settled(answer)
        expect(yield* orgStored(id)).toBe(false)
      }))
    it.effect("Connect JSON connect-timeout-ms 1: the answer matches the database", () =>
      orgCall((url, id) => connectCreateOrg(url, id, "1")))
    it.effect("Connect JSON connect-timeout-ms 0: the answer matches the database", () =>
      orgCall((url, id) => connectCreateOrg(url, id, "0")))
  })
})

/** Every org insert of a workflow waits `orgDelay` inside its transaction: a slow database. */
const SlowOrgs = Layer.effect(
  Orgs,
  Effect.map(Orgs, (orgs) => Orgs.make({ ...orgs, create: (org) => Effect.zipLeft(orgs.create(org), Effect.sleep(orgDelay)) }))
).pipe(Layer.provide(Orgs.Default))

const SlowServices = Layer.mergeAll(
  Orgs.Default,
  Profiles.Default,
  Licenses.Default,
  Onboarding.DefaultWithoutDependencies.pipe(Layer.provide([SlowOrgs, Profiles.Default, Licenses.Default, WorkflowRuns.Sql])),
  DatabaseHealthLive,
  unitOfWorkReferences
).pipe(Layer.provideMerge(TestDatabase))

describe(`a deadline that passes mid-transaction (${testDatabaseKind})`, () => {
  layer(inProcessServers({}, SlowServices), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("gRPC (raw HTTP/2), grpc-timeout 100m: the answer matches the database", () =>
      workflowCall((url) => grpcRaw(url, createWorkflow, envelope(workflowProto()), { "grpc-timeout": "100m" })))

    it.effect("Connect JSON, connect-timeout-ms 100: the answer matches the database", () =>
      workflowCall((url) =>
        httpCall(`${url}/${createWorkflow}`, {
          headers: { "content-type": "application/json", "connect-timeout-ms": "100" },
          body: JSON.stringify(workflowJson())
        }).then((reply): Answer => ({
          status: reply.status,
          code: reply.status === 200 ? "ok" : reply.json?.code,
          message: reply.json?.message ?? ""
        }))))
  })
})
