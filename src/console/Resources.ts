/** The services' records, as their REST APIs answer them and the console shows them. */

export interface Org { readonly id: string; readonly name: string }
export interface Profile { readonly id: string; readonly fullName: string; readonly orgId: string }
export interface License { readonly id: string; readonly userId: string; readonly start: string; readonly end: string }
export interface Run {
  readonly workflowId: string
  readonly orgId: string
  readonly profileId: string
  readonly licenseId: string
  readonly status: string
  readonly createdAt: string
}
export interface Created { readonly workflowId: string; readonly orgId: string; readonly profileId: string; readonly licenseId: string }
