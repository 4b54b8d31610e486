import { RpcClient } from "@effect/rpc"
import { Cause, Effect, Exit } from "effect"
import { LicenseRpcs } from "../../../src/transports/rpc/LicenseRpcs.js"
import { OrgRpcs } from "../../../src/transports/rpc/OrgRpcs.js"
import { ProfileRpcs } from "../../../src/transports/rpc/ProfileRpcs.js"
import { rpcProtocol } from "../../../src/transports/rpc/RpcClients.js"
import { WorkflowRpcs } from "../../../src/transports/rpc/WorkflowRpcs.js"
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
  return {
    style: "Effect RPC (@effect/rpc client)",
    createOrg: (org) => run(urls.org, Effect.flatMap(RpcClient.make(OrgRpcs), (c) => c.CreateOrg(org))).then(plain),
    getOrg: (id) => run(urls.org, Effect.flatMap(RpcClient.make(OrgRpcs), (c) => c.GetOrg({ id }))).then(plain),
    createProfile: (profile) =>
      run(urls.profile, Effect.flatMap(RpcClient.make(ProfileRpcs), (c) => c.CreateProfile(profile))).then(plain),
    getProfile: (id) => run(urls.profile, Effect.flatMap(RpcClient.make(ProfileRpcs), (c) => c.GetProfile({ id }))).then(plain),
    createLicense: (license) =>
      run(urls.license, Effect.flatMap(RpcClient.make(LicenseRpcs), (c) => c.CreateLicense(license))).then(plain),
    getLicense: (id) => run(urls.license, Effect.flatMap(RpcClient.make(LicenseRpcs), (c) => c.GetLicense({ id }))).then(plain),
    createWorkflow: ({ workflowId, ...request }) =>
      run(
        urls.workflow,
        Effect.flatMap(RpcClient.make(WorkflowRpcs), (c) =>
          c.CreateOnboardingWorkflow({ ...(workflowId === undefined ? {} : { workflowOptions: { workflowId } }), ...request }))
      ).then(plain),
    getWorkflow: (workflowId) =>
      run(urls.workflow, Effect.flatMap(RpcClient.make(WorkflowRpcs), (c) => c.GetOnboardingWorkflow({ workflowId }))).then(
        plain
      )
  }
}

export const rpcStyle: ClientStyle = { style: "Effect RPC (@effect/rpc client)", make: rpcClient }
