/**
 * The same data access as store.ts, on `@effect/sql-pg`: the minimal Effect peers (d), (f) and (g)
 * send the services' statements (statements.ts) through `sql.unsafe`, with the same create
 * semantics (insert; when the id is taken, read it back and compare) and the workflow's four
 * inserts in one `sql.withTransaction`. Nothing else: no validation, no error table, no budget,
 * retries, limits or telemetry of ours. Built once (`makeEffectStore`, which takes the SqlClient
 * from its context); each operation is then an Effect needing nothing more.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Redacted } from "effect"
import type { OtlpExport } from "../../src/main/OtlpSettings.js"
import { statements, tables } from "./statements.js"
import {
  claimRunValues,
  type Created,
  type LicenseRow,
  newWorkflowIds,
  type OrgRow,
  type ProfileRow,
  sameFields,
  type WorkflowInput,
  workflowRows
} from "./store.js"

const pgClient = PgClient.layer({
  url: Redacted.make(process.env["DATABASE_URL"] ?? ""),
  maxConnections: Number(process.env["DATABASE_POOL_SIZE"] ?? 10),
  applicationName: "bench-baseline"
})

/** The pool as (d) has always made it: tracing off, as in the services' default. */
export const pgLayer = Layer.merge(pgClient, Layer.setTracerEnabled(false))

/**
 * Whether the peer traces: the same variables as the services (OTLP export of traces when an
 * endpoint is set; OTEL_TRACES_SAMPLER and the rest read by the SDK itself).
 */
export const traced = process.env["OTEL_EXPORTER_OTLP_ENDPOINT"] !== undefined ||
  process.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] !== undefined

/**
 * The peer's layer: untraced, `pgLayer` as always (the SDK not even loaded); traced (issue 41), the
 * pool with Effect's tracer on and the services' own `openTelemetryLayer` (@effect/opentelemetry's
 * tracer, batch processor, OTLP/HTTP protobuf exporter; traces only), so that the spans are the
 * ones Effect and its libraries make by default (@effect/sql's `sql.execute`, and whatever the
 * peer's server makes) and their cost is Effect's, not ours. Process `peer-<name>`.
 */
export const peerLayer = async (name: string) =>
  traced
    ? Layer.merge(
      pgClient,
      (await import("../../src/main/OpenTelemetry.js")).openTelemetryLayer(
        `peer-${name}`,
        { traces: true, metrics: false, metricsIntervalMillis: 60_000 } satisfies OtlpExport
      )
    )
    : pgLayer

/** The rows an insert wrote, from `pg`'s result. */
const rowCount = (result: unknown) => (result as { readonly rowCount: number | null }).rowCount ?? 0

export const makeEffectStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const first = <A extends object>(text: string, values: ReadonlyArray<unknown>) =>
    Effect.map(sql.unsafe<A>(text, values), (rows): A | undefined => rows[0])

  const insertOrReplay = <A extends { readonly id: string }>(
    insert: string,
    values: ReadonlyArray<unknown>,
    select: string,
    value: A
  ) =>
    Effect.gen(function*() {
      if (rowCount(yield* sql.unsafe(insert, values).raw) === 1) return { kind: "ok", value } as Created<A>
      const stored = yield* first<A>(select, [value.id])
      return (stored !== undefined && sameFields(value, stored) ? { kind: "ok", value: stored } : { kind: "exists" }) as Created<A>
    })

  return {
    createOrg: (org: OrgRow) => insertOrReplay(statements.insertOrg, tables.orgs.values(org), statements.selectOrg, org),
    getOrg: (id: string) => first<OrgRow>(statements.selectOrg, [id]),
    createProfile: (p: ProfileRow) =>
      insertOrReplay(statements.insertProfile, tables.profiles.values(p), statements.selectProfile, p),
    getProfile: (id: string) => first<ProfileRow>(statements.selectProfile, [id]),
    createLicense: (l: LicenseRow) =>
      insertOrReplay(statements.insertLicense, tables.licenses.values(l), statements.selectLicense, l),
    getLicense: (id: string) => first<LicenseRow>(statements.selectLicense, [id]),

    /**
     * The workflow's transaction: claim the run row, then the three rows; ids made here. It runs to
     * its end when its caller leaves (as the services' work does): interrupted mid-statement,
     * @effect/sql-pg would cancel the statement with `pg_cancel_backend` sent through this same
     * pool, whose every connection may be held by a transaction waiting for its own cancel before
     * its rollback. Nothing then moves until the cancels time out (5 s): what (d), whose handler
     * is interrupted when the load generator closes its connections at the end of a measurement,
     * did to the next measurement of the workflow at c64 in the run of 7912916.
     */
    createWorkflow: (input: WorkflowInput) =>
      Effect.suspend(() => {
        const ids = newWorkflowIds()
        return sql.withTransaction(Effect.gen(function*() {
          yield* sql.unsafe(statements.claimRun, claimRunValues(ids, input)).raw
          yield* sql.unsafe(statements.insertOrg, workflowRows(ids, input).org).raw
          yield* sql.unsafe(statements.insertProfile, workflowRows(ids, input).profile).raw
          yield* sql.unsafe(statements.insertLicense, workflowRows(ids, input).license).raw
          return ids
        }))
      }).pipe(Effect.uninterruptible)
  } as const
})

export type EffectStore = Effect.Effect.Success<typeof makeEffectStore>
