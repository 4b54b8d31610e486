import type { Rpc } from "@effect/rpc"
import type { SqlClient } from "@effect/sql"
import type { Layer } from "effect"
import type { OperationHandlers } from "../contract/OperationHandlers.js"
import { LicenseOperationsLive } from "../operations/LicenseOperationsLive.js"
import { OrgOperationsLive } from "../operations/OrgOperationsLive.js"
import { ProfileOperationsLive } from "../operations/ProfileOperationsLive.js"
import { WorkflowOperationsLive } from "../operations/WorkflowOperationsLive.js"
import { licenseApi, orgApi, profileApi, type ServiceApi, workflowApi } from "../transports/ServiceApis.js"
import { Licenses } from "../services/Licenses.js"
import { Onboarding } from "../services/Onboarding.js"
import { Orgs } from "../services/Orgs.js"
import { Profiles } from "../services/Profiles.js"

/** A service as a process sees it: what it serves, what it needs, where it listens by default. */
export interface ServicePort<S, Rpcs extends Rpc.Any> {
  readonly name: string
  readonly api: ServiceApi<OperationHandlers<Rpcs>, Rpcs>
  /** The services behind the operations, over the database. */
  readonly services: Layer.Layer<S, never, SqlClient.SqlClient>
  /** The operations' handlers (the operations table's layer), over the services. */
  readonly rpcHandlers: Layer.Layer<OperationHandlers<Rpcs>, never, S>
  readonly defaultPort: number
  readonly portVariable: string
  /** Whether its port serves the onboarding console at `/` (the workflow service's does). */
  readonly servesConsole?: boolean
}

export const org = {
  name: "org",
  api: orgApi,
  services: Orgs.Default,
  rpcHandlers: OrgOperationsLive,
  defaultPort: 9090,
  portVariable: "ORG_PORT"
}

export const profile = {
  name: "profile",
  api: profileApi,
  services: Profiles.Default,
  rpcHandlers: ProfileOperationsLive,
  defaultPort: 9091,
  portVariable: "PROFILE_PORT"
}

export const license = {
  name: "license",
  api: licenseApi,
  services: Licenses.Default,
  rpcHandlers: LicenseOperationsLive,
  defaultPort: 9092,
  portVariable: "LICENSE_PORT"
}

/** The workflow process composes the three services (not their transports) in its own transactions. */
export const workflow = {
  name: "workflow",
  api: workflowApi,
  services: Onboarding.Default,
  rpcHandlers: WorkflowOperationsLive,
  defaultPort: 8081,
  portVariable: "WORKFLOW_PORT",
  servesConsole: true
}
