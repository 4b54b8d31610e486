/**
 * Baseline (b): a plain connect-node handler + `pg` without Effect, i.e. what a user would write
 * instead of the services. Same generated descriptors, same statements and pool (store.ts); no
 * domain validation, no error table beyond NotFound / AlreadyExists / InvalidArgument. One adapter
 * handler serves Connect (JSON and binary) over HTTP/1.1 on PORT and gRPC over h2c (prior
 * knowledge) on GRPC_PORT (connectServer.ts, shared with (f)). Env: DATABASE_URL, PORT, GRPC_PORT,
 * DATABASE_POOL_SIZE (10).
 */
import { LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { created, found, license, notMeasured, refusal, serveConnect, toText } from "./connectServer.js"
import { openStore } from "./store.js"

const store = openStore(process.env["DATABASE_URL"] ?? "", Number(process.env["DATABASE_POOL_SIZE"] ?? 10))

serveConnect((router) => {
  router.service(OrgService, {
    createOrg: async (req) => ({ org: await created(store.createOrg({ id: req.id, name: req.name })) }),
    getOrg: async (req) => ({ org: await found(store.getOrg(req.id)) })
  })
  router.service(ProfileService, {
    createProfile: async (req) => ({
      profile: await created(store.createProfile({ id: req.id, fullName: req.fullName, orgId: req.orgId }))
    }),
    getProfile: async (req) => ({ profile: await found(store.getProfile(req.id)) })
  })
  router.service(LicenseService, {
    createLicense: async (req) => ({
      license: license(
        await created(store.createLicense({ id: req.id, userId: req.userId, start: toText(req.start), end: toText(req.end) }))
      )
    }),
    getLicense: async (req) => ({ license: license(await found(store.getLicense(req.id))) })
  })
  router.service(WorkflowService, {
    createOnboardingWorkflow: async (req) =>
      store.createWorkflow({
        orgName: req.org?.name ?? "",
        fullName: req.profile?.fullName ?? "",
        start: toText(req.license?.start),
        end: toText(req.license?.end)
      }).catch(refusal),
    getOnboardingWorkflow: notMeasured
  })
}, () => store.close())
