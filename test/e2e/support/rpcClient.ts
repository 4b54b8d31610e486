import { RpcClient } from "@effect/rpc"
import { Cause, Effect, Exit } from "effect"
import { LicenseOperations } from "../../../src/contract/LicenseOperations.js"
import { OrgOperations } from "../../../src/contract/OrgOperations.js"
import { ProfileOperations } from "../../../src/contract/ProfileOperations.js"
import { rpcProtocol } from "../../../src/client/RpcProtocol.js"
import { WorkflowOperations } from "../../../src/contract/WorkflowOperations.js"
import { type ClientStyle, type ServiceUrls, type StyleClient, StyleError } from "./StyleClient.js"

const codeOfTag: Record<string, number> = { InvalidArgument: 3, NotFound: 5, AlreadyExists: 6, Unavailable: 14 }

/** The typed `@effect/rpc` clients, as another TypeScript program would use them. */
const rpcClient = (urls: ServiceUrls): StyleClient => {
  const run = async <A>(url: string, effect: Effect.Effect<A, { readonly _tag: string; readonly message: string }, any>) => {
    const exit = await Effect.runPromiseExit(
      Effect.scoped(effect).pipe(Effect.provide(rpcProtocol(`${url}/rpc`))) as Effect.Effect<A, any>
    )
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") throw new StyleError(codeOfTag[failure.value._tag] ?? 2, failure.value.message)
    throw new Error(Cause.pretty(exit.cause))
  }
  const plain = <A extends object>(value: A) => ({ ...value })
  const page = <A extends object>(items: ReadonlyArray<A>, nextPageToken: string) => ({ items: items.map(plain), nextPageToken })
  return {
    style: "Effect RPC (@effect/rpc client)",
    listOrgs: (request) =>
      run(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.ListOrgs(request))).then((r) =>
        page(r.orgs, r.nextPageToken)
      ),
    listProfiles: (request) =>
      run(urls.profile, Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.ListProfiles(request))).then((r) =>
        page(r.profiles, r.nextPageToken)
      ),
    listLicenses: (request) =>
      run(urls.license, Effect.flatMap(RpcClient.make(LicenseOperations), (c) => c.ListLicenses(request))).then((r) =>
        page(r.licenses, r.nextPageToken)
      ),
    listWorkflows: (request) =>
      run(urls.workflow, Effect.flatMap(RpcClient.make(WorkflowOperations), (c) => c.ListOnboardingWorkflows(request))).then((r) =>
        page(r.workflows, r.nextPageToken)
      ),
    createOrg: (org) => run(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.CreateOrg(org))).then(plain),
    getOrg: (id) => run(urls.org, Effect.flatMap(RpcClient.make(OrgOperations), (c) => c.GetOrg({ id }))).then(plain),
    createProfile: (profile) =>
      run(urls.profile, Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.CreateProfile(profile))).then(plain),
    getProfile: (id) => run(urls.profile, Effect.flatMap(RpcClient.make(ProfileOperations), (c) => c.GetProfile({ id }))).then(plain),
    createLicense: (license) =>
      run(urls.license, Effect.flatMap(RpcClient.make(LicenseOperations), (c) => c.CreateLicense(license))).then(plain),
    getLicense: (id) => run(urls.license, Effect.flatMap(RpcClient.make(LicenseOperations), (c) => c.GetLicense({ id }))).then(plain),
    createWorkflow: ({ workflowId, ...request }) =>
      run(
        urls.workflow,
        Effect.flatMap(RpcClient.make(WorkflowOperations), (c) =>
          c.CreateOnboardingWorkflow({ ...(workflowId === undefined ? {} : { workflowOptions: { workflowId } }), ...request }))
      ).then(plain),
    getWorkflow: (workflowId) =>
      run(urls.workflow, Effect.flatMap(RpcClient.make(WorkflowOperations), (c) => c.GetOnboardingWorkflow({ workflowId }))).then(
        plain
      )
  }
}

export const rpcStyle: ClientStyle = { style: "Effect RPC (@effect/rpc client)", make: rpcClient }
