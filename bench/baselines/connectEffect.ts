/**
 * Baseline (f): the minimal Effect service for Connect and gRPC, the anchor of what our own code
 * costs on top of Effect in those styles (issue 28). connect-node's router, as in (b) and on the
 * same plumbing (connectServer.ts: one adapter handler, Connect JSON and binary over HTTP/1.1 on
 * PORT, gRPC over h2c on GRPC_PORT), whose handlers run the services' statements on
 * `@effect/sql-pg` (effectStore.ts, shared with (d) and (g): `sql.unsafe` with the services' text,
 * the workflow in one `withTransaction`) through a `ManagedRuntime`, `runtime.runPromise` per call.
 * Tracing off, as the services run by default. Nothing of ours: no validation, no error table
 * beyond (b)'s three refusals, no budget, retries, limits or telemetry.
 * Env: DATABASE_URL, PORT, GRPC_PORT, DATABASE_POOL_SIZE (10).
 */
import { type Effect, ManagedRuntime } from "effect"
import { LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { created, found, license, notMeasured, refusal, serveConnect, toText } from "./connectServer.js"
import { makeEffectStore, pgLayer } from "./effectStore.js"

const runtime = ManagedRuntime.make(pgLayer)
const store = await runtime.runPromise(makeEffectStore)

/** One call's Effect, run to a promise (a failure rejects it with a FiberFailure, which `refusal` looks into). */
const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => runtime.runPromise(effect)

serveConnect((router) => {
  router.service(OrgService, {
    createOrg: async (req) => ({ org: await created(run(store.createOrg({ id: req.id, name: req.name }))) }),
    getOrg: async (req) => ({ org: await found(run(store.getOrg(req.id))) })
  })
  router.service(ProfileService, {
    createProfile: async (req) => ({
      profile: await created(run(store.createProfile({ id: req.id, fullName: req.fullName, orgId: req.orgId })))
    }),
    getProfile: async (req) => ({ profile: await found(run(store.getProfile(req.id))) })
  })
  router.service(LicenseService, {
    createLicense: async (req) => ({
      license: license(
        await created(
          run(store.createLicense({ id: req.id, userId: req.userId, start: toText(req.start), end: toText(req.end) }))
        )
      )
    }),
    getLicense: async (req) => ({ license: license(await found(run(store.getLicense(req.id)))) })
  })
  router.service(WorkflowService, {
    createOnboardingWorkflow: async (req) =>
      run(store.createWorkflow({
        orgName: req.org?.name ?? "",
        fullName: req.profile?.fullName ?? "",
        start: toText(req.license?.start),
        end: toText(req.license?.end)
      })).catch(refusal),
    getOnboardingWorkflow: notMeasured
  })
}, () => runtime.dispose())
