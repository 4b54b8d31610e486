/**
 * Baseline (h): the idiomatic Effect peer for REST, the services' REST paths written as
 * Effect-TS/examples' `http-server` writes a service: an `HttpApi` whose endpoints decode their
 * path and payload with the domain's own schemas (src/domain), errors that are `TaggedError`s
 * annotated with their status, repositories on `SqlSchema` (`findOne` as `findById`, `single`,
 * `void`) as `Effect.Service`s, handlers by `HttpApiBuilder.group`, served by
 * `HttpApiBuilder.serve` through `@effect/platform-node` and launched as a layer. The statements
 * are the services' own texts (statements.ts), on (d)'s pool (`pgLayer`). Tracing is off, as in
 * ours and (d); no request logger (the example's `HttpMiddleware.logger`), no OpenAPI or Swagger
 * route, no authentication: what the benchmark's calls do not pass through. Only the measured
 * routes: GET and POST of each resource, the workflow's POST. Env: DATABASE_URL, PORT,
 * DATABASE_POOL_SIZE (10).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Console, Effect, Equal, Layer, Option, Schema, Struct } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { LicenseId, OrgId, ProfileId, UserId, WorkflowId } from "../../src/domain/Ids.js"
import { endsAfterStart, License } from "../../src/domain/License.js"
import { OnboardingRequest, OnboardingResult, RunStatus } from "../../src/domain/Onboarding.js"
import { fingerprint } from "../../src/services/Onboarding.js"
import { Org } from "../../src/domain/Org.js"
import { Profile } from "../../src/domain/Profile.js"
import { pgLayer } from "./effectStore.js"
import { completed, statements, tables } from "./statements.js"

// Domain: the services' schemas; the errors as the example declares them.

class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { id: Schema.String }, HttpApiSchema.annotations({ status: 404 })) {}

class AlreadyExists
  extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", { id: Schema.String }, HttpApiSchema.annotations({ status: 409 }))
{}

/** A workflow run's row, as `claimRun` binds it. */
const Run = Schema.Struct({ ...OnboardingResult.fields, status: RunStatus, fingerprint: Schema.String })

// Api: one group per resource, as the example's `Groups/Api.ts`.

class OrgsApi extends HttpApiGroup.make("orgs")
  .add(
    HttpApiEndpoint.get("findById", "/orgs/:id").setPath(Schema.Struct({ id: OrgId }))
      .addSuccess(Schema.Struct({ org: Org })).addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/orgs/:id").setPath(Schema.Struct({ id: OrgId }))
      .setPayload(Schema.Struct(Struct.omit(Org.fields, "id"))).addSuccess(Schema.Struct({ org: Org })).addError(AlreadyExists)
  )
{}

class ProfilesApi extends HttpApiGroup.make("profiles")
  .add(
    HttpApiEndpoint.get("findById", "/profiles/:id").setPath(Schema.Struct({ id: ProfileId }))
      .addSuccess(Schema.Struct({ profile: Profile })).addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/profiles/:id").setPath(Schema.Struct({ id: ProfileId }))
      .setPayload(Schema.Struct(Struct.omit(Profile.fields, "id"))).addSuccess(Schema.Struct({ profile: Profile }))
      .addError(AlreadyExists)
  )
{}

class LicensesApi extends HttpApiGroup.make("licenses")
  .add(
    HttpApiEndpoint.get("findById", "/licenses/:id").setPath(Schema.Struct({ id: LicenseId }))
      .addSuccess(Schema.Struct({ license: License })).addError(NotFound)
  )
  .add(
    // The fields less the id lose License's rule across them: the domain's rule, given again.
    HttpApiEndpoint.post("create", "/licenses/:id").setPath(Schema.Struct({ id: LicenseId }))
      .setPayload(Schema.Struct(Struct.omit(License.fields, "id")).pipe(endsAfterStart("start"))).addSuccess(Schema.Struct({ license: License }))
      .addError(AlreadyExists)
  )
{}

class WorkflowsApi extends HttpApiGroup.make("workflows")
  .add(HttpApiEndpoint.post("create", "/workflow/workflows/onboarding").setPayload(OnboardingRequest).addSuccess(OnboardingResult))
{}

class Api extends HttpApi.make("api").add(OrgsApi).add(ProfilesApi).add(LicensesApi).add(WorkflowsApi) {}

// Repositories: SqlSchema over the services' statements.

/** `pg`'s count of the rows a statement wrote. */
const rowCount = (result: unknown) => (result as { readonly rowCount: number | null }).rowCount ?? 0

/**
 * A resource's repository: `findById` and the services' create (insert unless present; when the
 * id is taken, read it back: the same record is a replay, another is `AlreadyExists`). The insert
 * answers no row (the services' text has no `returning`): its single result is the count it wrote.
 */
const makeRepository = <A extends { readonly id: Id }, I, Id, IdI>(options: {
  readonly Record: Schema.Schema<A, I>
  readonly Id: Schema.Schema<Id, IdI>
  readonly insert: string
  readonly select: string
  readonly values: (record: I) => ReadonlyArray<unknown>
}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const findById = SqlSchema.findOne({
      Request: options.Id,
      Result: options.Record,
      execute: (id) => sql.unsafe(options.select, [id])
    })
    const insert = SqlSchema.single({
      Request: options.Record,
      Result: Schema.Number,
      execute: (record) => Effect.map(sql.unsafe(options.insert, options.values(record)).raw, (result) => [rowCount(result)])
    })
    const create = (record: A) =>
      Effect.flatMap(insert(record), (written) =>
        written === 1 ? Effect.succeed(record) : Effect.flatMap(findById(record.id), (stored) =>
          Option.isSome(stored) && Equal.equals(stored.value, record)
            ? Effect.succeed(stored.value)
            : Effect.fail(new AlreadyExists({ id: String(record.id) }))))
    return {
      findById: (id: Id) => Effect.orDie(findById(id)),
      create: (record: A) => Effect.catchIf(create(record), (e) => !(e instanceof AlreadyExists), Effect.die)
    } as const
  })

class OrgsRepo extends Effect.Service<OrgsRepo>()("OrgsRepo", {
  effect: makeRepository({
    Record: Org,
    Id: OrgId,
    insert: statements.insertOrg,
    select: statements.selectOrg,
    values: tables.orgs.values
  }),
  dependencies: [pgLayer]
}) {}

class ProfilesRepo extends Effect.Service<ProfilesRepo>()("ProfilesRepo", {
  effect: makeRepository({
    Record: Profile,
    Id: ProfileId,
    insert: statements.insertProfile,
    select: statements.selectProfile,
    values: tables.profiles.values
  }),
  dependencies: [pgLayer]
}) {}

class LicensesRepo extends Effect.Service<LicensesRepo>()("LicensesRepo", {
  effect: makeRepository({
    Record: License,
    Id: LicenseId,
    insert: statements.insertLicense,
    select: statements.selectLicense,
    values: tables.licenses.values
  }),
  dependencies: [pgLayer]
}) {}

/**
 * The workflow: its run row and three records in one transaction, ids made here (as (d): the
 * caller's workflow id is not replayed). The transaction runs to its end when its caller leaves,
 * for the reason effectStore.ts gives.
 */
class OnboardingRepo extends Effect.Service<OnboardingRepo>()("OnboardingRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const claimRun = SqlSchema.void({ Request: Run, execute: (run) => sql.unsafe(statements.claimRun, tables.runs.values(run)) })
    const insertOrg = SqlSchema.void({ Request: Org, execute: (org) => sql.unsafe(statements.insertOrg, tables.orgs.values(org)) })
    const insertProfile = SqlSchema.void({
      Request: Profile,
      execute: (profile) => sql.unsafe(statements.insertProfile, tables.profiles.values(profile))
    })
    const insertLicense = SqlSchema.void({
      Request: License,
      execute: (license) => sql.unsafe(statements.insertLicense, tables.licenses.values(license))
    })
    const create = (request: OnboardingRequest) =>
      Effect.suspend(() => {
        const result = new OnboardingResult({
          workflowId: WorkflowId.make(randomUUID()),
          orgId: OrgId.make(randomUUID()),
          profileId: ProfileId.make(randomUUID()),
          licenseId: LicenseId.make(randomUUID())
        })
        return Effect.all([
          claimRun({ ...result, status: completed, fingerprint: fingerprint(request) }),
          insertOrg(new Org({ ...request.org, id: result.orgId })),
          insertProfile(new Profile({ ...request.profile, id: result.profileId, orgId: result.orgId })),
          insertLicense(new License({ ...request.license, id: result.licenseId, userId: UserId.make(result.profileId) }))
        ], { discard: true }).pipe(sql.withTransaction, Effect.as(result))
      }).pipe(Effect.orDie, Effect.uninterruptible)
    return { create } as const
  }),
  dependencies: [pgLayer]
}) {}

// Http: the handlers, as the example's `Groups/Http.ts`.

const HttpOrgsLive = HttpApiBuilder.group(Api, "orgs", (handlers) =>
  Effect.gen(function*() {
    const orgs = yield* OrgsRepo
    return handlers
      .handle("findById", ({ path }) =>
        Effect.flatMap(orgs.findById(path.id), Option.match({
          onNone: () => Effect.fail(new NotFound({ id: path.id })),
          onSome: (org) => Effect.succeed({ org })
        })))
      .handle("create", ({ path, payload }) => Effect.map(orgs.create(new Org({ ...payload, id: path.id })), (org) => ({ org })))
  })).pipe(Layer.provide(OrgsRepo.Default))

const HttpProfilesLive = HttpApiBuilder.group(Api, "profiles", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* ProfilesRepo
    return handlers
      .handle("findById", ({ path }) =>
        Effect.flatMap(profiles.findById(path.id), Option.match({
          onNone: () => Effect.fail(new NotFound({ id: path.id })),
          onSome: (profile) => Effect.succeed({ profile })
        })))
      .handle("create", ({ path, payload }) =>
        Effect.map(profiles.create(new Profile({ ...payload, id: path.id })), (profile) => ({ profile })))
  })).pipe(Layer.provide(ProfilesRepo.Default))

const HttpLicensesLive = HttpApiBuilder.group(Api, "licenses", (handlers) =>
  Effect.gen(function*() {
    const licenses = yield* LicensesRepo
    return handlers
      .handle("findById", ({ path }) =>
        Effect.flatMap(licenses.findById(path.id), Option.match({
          onNone: () => Effect.fail(new NotFound({ id: path.id })),
          onSome: (license) => Effect.succeed({ license })
        })))
      .handle("create", ({ path, payload }) =>
        Effect.map(licenses.create(new License({ ...payload, id: path.id })), (license) => ({ license })))
  })).pipe(Layer.provide(LicensesRepo.Default))

const HttpWorkflowsLive = HttpApiBuilder.group(Api, "workflows", (handlers) =>
  Effect.gen(function*() {
    const onboarding = yield* OnboardingRepo
    return handlers.handle("create", ({ payload }) => onboarding.create(payload))
  })).pipe(Layer.provide(OnboardingRepo.Default))

// main: served as the example's `Http.ts`, launched as its `main.ts`.

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([HttpOrgsLive, HttpProfilesLive, HttpLicensesLive, HttpWorkflowsLive])
)

/** What the benchmark waits for before it loads a baseline. */
const Listening = Layer.effectDiscard(
  HttpServer.addressWith((address) => Console.log(`listening on ${address._tag === "TcpAddress" ? address.port : address.path}`))
)

HttpApiBuilder.serve().pipe(
  Layer.merge(Listening),
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(ApiLive),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env["PORT"] ?? 0), host: "127.0.0.1" })),
  Layer.provide(Layer.setTracerEnabled(false)),
  Layer.launch,
  NodeRuntime.runMain
)
