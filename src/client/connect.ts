/**
 * `onboarding-services-client/connect`: the four services for Connect, gRPC and gRPC-Web alone, the
 * generated descriptors and the error details a refusal carries, with none of Effect, so that a
 * front end bundles only these and connect-es (docs/examples.md, "In a browser"; test/client-connect-bundle.test.ts
 * holds a call's bundle to its size). The transport is the caller's: `@connectrpc/connect-web` in a
 * browser.
 *
 *   const orgs = createClient(OrgService, createConnectTransport({ baseUrl }))
 *   const details = ConnectError.from(error).findDetails(BadRequestSchema)
 */
export { type License, LicenseSchema, LicenseService } from "../gen/license/v1beta1/license_pb.js"
export { type Org, OrgSchema, OrgService } from "../gen/org/v1beta1/org_pb.js"
export { type Profile, ProfileSchema, ProfileService } from "../gen/profile/v1beta1/profile_pb.js"
export {
  type OnboardingWorkflow,
  OnboardingWorkflowSchema,
  WorkflowService
} from "../gen/workflow/v1beta1/workflow_pb.js"
// google.rpc's error details: BadRequest names the fields of an InvalidArgument, ResourceInfo the
// resource of a NotFound or an AlreadyExists (docs/contract.md).
export * from "../gen/google/rpc/error_details_pb.js"
export { bearerToken, connectClient } from "./ConnectClient.js"
