/**
 * Baseline (f): the minimal Effect service for Connect and gRPC, the anchor of what our own code
 * costs on top of Effect in those styles (issue 28). connect-node's router, as in (b) and on the
 * same plumbing (connectServer.ts: one adapter handler, Connect JSON and binary over HTTP/1.1 on
 * PORT, gRPC over h2c on GRPC_PORT), whose handlers run the services' statements on
 * `@effect/sql-pg` (effectStore.ts, shared with (d) and (g): `sql.unsafe` with the services' text,
 * the workflow in one `withTransaction`) through a `ManagedRuntime`, `runtime.runPromise` per call.
 * Tracing off, as the services run by default, unless OTEL_EXPORTER_OTLP_ENDPOINT (or
 * ..._TRACES_ENDPOINT) asks for it (effectStore.ts: peerLayer; `run` below). Nothing of ours: no validation, no error table
 * beyond (b)'s three refusals, no budget, retries, limits or telemetry.
 * Env: DATABASE_URL, PORT, GRPC_PORT, DATABASE_POOL_SIZE (10).
 */
import type { DescMethod } from "@bufbuild/protobuf"
import { Effect, ManagedRuntime } from "effect"
import { LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { created, found, license, notMeasured, refusal, serveConnect, toText } from "./connectServer.js"
import { makeEffectStore, peerLayer, traced } from "./effectStore.js"

const runtime = ManagedRuntime.make(await peerLayer("f"))
const store = await runtime.runPromise(makeEffectStore)

/**
 * One call's Effect, run to a promise (a failure rejects it with a FiberFailure, which `refusal`
 * looks into). Traced, connect-node makes no span of its own, so the call gets the one server span
 * an Effect service on it would make itself (`Effect.withSpan`, OpenTelemetry's RPC attributes),
 * with @effect/sql's `sql.execute` under it; untraced, nothing is added.
 */
const run = <A, E>(method: DescMethod, effect: Effect.Effect<A, E>): Promise<A> =>
  runtime.runPromise(
    traced
      ? Effect.withSpan(effect, `${method.parent.typeName}/${method.name}`, {
        kind: "server",
        attributes: { "rpc.system": "connect_rpc", "rpc.service": method.parent.typeName, "rpc.method": method.name }
      })
      : effect
  )

serveConnect((router) => {
  router.service(OrgService, {
    createOrg: async (req) => ({ org: await created(run(OrgService.method.createOrg, store.createOrg({ id: req.id, name: req.name }))) }),
    getOrg: async (req) => ({ org: await found(run(OrgService.method.getOrg, store.getOrg(req.id))) })
  })
  router.service(ProfileService, {
    createProfile: async (req) => ({
      profile: await created(run(ProfileService.method.createProfile, store.createProfile({ id: req.id, fullName: req.fullName, orgId: req.orgId })))
    }),
    getProfile: async (req) => ({ profile: await found(run(ProfileService.method.getProfile, store.getProfile(req.id))) })
  })
  router.service(LicenseService, {
    createLicense: async (req) => ({
      license: license(
        await created(
          run(LicenseService.method.createLicense, store.createLicense({ id: req.id, userId: req.userId, start: toText(req.start), end: toText(req.end) }))
        )
      )
    }),
    getLicense: async (req) => ({ license: license(await found(run(LicenseService.method.getLicense, store.getLicense(req.id)))) })
  })
  router.service(WorkflowService, {
    createOnboardingWorkflow: async (req) =>
      run(WorkflowService.method.createOnboardingWorkflow, store.createWorkflow({
        orgName: req.org?.name ?? "",
        fullName: req.profile?.fullName ?? "",
        start: toText(req.license?.start),
        end: toText(req.license?.end)
      })).catch(refusal),
    getOnboardingWorkflow: notMeasured
  })
}, () => runtime.dispose())
