import type { Rpc } from "@effect/rpc"
import type { SqlClient } from "@effect/sql"
import type { Layer } from "effect"
import {
  LicenseRpcHandlers,
  OrgRpcHandlers,
  ProfileRpcHandlers,
  WorkflowRpcHandlers
} from "../transports/rpc/rpcHandlers.js"
import { licenseApi, orgApi, profileApi, type ServiceApi, workflowApi } from "../transports/ServiceApis.js"
import { Licenses } from "../services/Licenses.js"
import { Onboarding } from "../services/Onboarding.js"
import { Orgs } from "../services/Orgs.js"
import { Profiles } from "../services/Profiles.js"

/** A service as a process sees it: what it serves, what it needs, where it listens by default. */
export interface ServicePort<R, Rpcs extends Rpc.Any> {
  readonly name: string
  readonly api: ServiceApi<R, Rpcs>
  readonly services: Layer.Layer<R, never, SqlClient.SqlClient>
  readonly rpcHandlers: Layer.Layer<Rpc.ToHandler<Rpcs>, never, R>
  readonly defaultPort: number
  readonly portVariable: string
}

export const org = {
  name: "org",
  api: orgApi,
  services: Orgs.Default,
  rpcHandlers: OrgRpcHandlers,
  defaultPort: 9090,
  portVariable: "ORG_PORT"
}

export const profile = {
  name: "profile",
  api: profileApi,
  services: Profiles.Default,
  rpcHandlers: ProfileRpcHandlers,
  defaultPort: 9091,
  portVariable: "PROFILE_PORT"
}

export const license = {
  name: "license",
  api: licenseApi,
  services: Licenses.Default,
  rpcHandlers: LicenseRpcHandlers,
  defaultPort: 9092,
  portVariable: "LICENSE_PORT"
}

/** The workflow process composes the three services (not their transports) in its own transactions. */
export const workflow = {
  name: "workflow",
  api: workflowApi,
  services: Onboarding.Default,
  rpcHandlers: WorkflowRpcHandlers,
  defaultPort: 8081,
  portVariable: "WORKFLOW_PORT"
}
