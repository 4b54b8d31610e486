/**
 * One access style seen from outside: every operation of the four services, with plain JSON-ish
 * values in and out, so the same end-to-end checks run against every client. Timestamps are
 * RFC 3339 strings. A refused call throws a `StyleError` carrying the gRPC numeric code.
 */
export interface Org {
  readonly id: string
  readonly name: string
}
export interface Profile {
  readonly id: string
  readonly fullName: string
  readonly orgId: string
}
export interface License {
  readonly id: string
  readonly userId: string
  readonly start: string
  readonly end: string
}
export interface WorkflowRequest {
  readonly workflowId?: string
  readonly license: { readonly start: string; readonly end: string }
  readonly org: { readonly name: string }
  readonly profile: { readonly fullName: string }
}
export interface WorkflowResult {
  readonly workflowId: string
  readonly orgId: string
  readonly profileId: string
  readonly licenseId: string
}
export interface WorkflowRun extends WorkflowResult {
  readonly status: string
  readonly createdAt: string
}

/** A list request (contract §7): size and token, and a filter for the lists that have one. */
export interface PageRequest {
  readonly pageSize?: number
  readonly pageToken?: string
}
/** A page as every style answers it; `nextPageToken` is "" on the last page. */
export interface ListPage<A> {
  readonly items: ReadonlyArray<A>
  readonly nextPageToken: string
}

/** Base URLs (`http://127.0.0.1:PORT`) of the four service ports. */
export interface ServiceUrls {
  readonly org: string
  readonly profile: string
  readonly license: string
  readonly workflow: string
}

export interface StyleClient {
  readonly style: string
  createOrg(org: Org): Promise<Org>
  getOrg(id: string): Promise<Org>
  createProfile(profile: Profile): Promise<Profile>
  getProfile(id: string): Promise<Profile>
  createLicense(license: License): Promise<License>
  getLicense(id: string): Promise<License>
  createWorkflow(request: WorkflowRequest): Promise<WorkflowResult>
  getWorkflow(workflowId: string): Promise<WorkflowRun>
  listOrgs(page: PageRequest): Promise<ListPage<Org>>
  listProfiles(page: PageRequest & { readonly orgId?: string }): Promise<ListPage<Profile>>
  listLicenses(page: PageRequest & { readonly userId?: string }): Promise<ListPage<License>>
  listWorkflows(page: PageRequest & { readonly status?: string }): Promise<ListPage<WorkflowRun>>
  close?(): void
}

/** A kind of client, named before it is pointed at the services. */
export interface ClientStyle {
  readonly style: string
  readonly make: (urls: ServiceUrls) => StyleClient
}

/** gRPC status codes the contract uses (contract §8). */
export const GrpcCode = {
  InvalidArgument: 3,
  NotFound: 5,
  AlreadyExists: 6,
  ResourceExhausted: 8,
  Internal: 13,
  Unavailable: 14,
  Unauthenticated: 16
} as const

export class StyleError extends Error {
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

/** Connect's lower_snake code names (as in Connect JSON error bodies and `buf curl` output) -> numbers. */
export const codeFromName: Record<string, number> = {
  canceled: 1,
  unknown: 2,
  invalid_argument: 3,
  deadline_exceeded: 4,
  not_found: 5,
  already_exists: 6,
  permission_denied: 7,
  resource_exhausted: 8,
  failed_precondition: 9,
  aborted: 10,
  out_of_range: 11,
  unimplemented: 12,
  internal: 13,
  unavailable: 14,
  data_loss: 15,
  unauthenticated: 16
}
