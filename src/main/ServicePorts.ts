import type { SqlClient } from "@effect/sql"
import type { Layer } from "effect"
import { type ConnectApi, licenseApi, orgApi, profileApi, workflowApi } from "../transports/connect/connectRoutes.js"
import { Licenses } from "../services/Licenses.js"
import { Onboarding } from "../services/Onboarding.js"
import { Orgs } from "../services/Orgs.js"
import { Profiles } from "../services/Profiles.js"

/** A service as a process sees it: what it serves, what it needs, where it listens by default. */
export interface ServicePort<R> {
  readonly name: string
  readonly api: ConnectApi<R>
  readonly services: Layer.Layer<R, never, SqlClient.SqlClient>
  readonly defaultPort: number
  readonly portVariable: string
}

export const org: ServicePort<Orgs> = {
  name: "org",
  api: orgApi,
  services: Orgs.Default,
  defaultPort: 9090,
  portVariable: "ORG_PORT"
}

export const profile: ServicePort<Profiles> = {
  name: "profile",
  api: profileApi,
  services: Profiles.Default,
  defaultPort: 9091,
  portVariable: "PROFILE_PORT"
}

export const license: ServicePort<Licenses> = {
  name: "license",
  api: licenseApi,
  services: Licenses.Default,
  defaultPort: 9092,
  portVariable: "LICENSE_PORT"
}

/** The workflow process composes the three services (not their transports) in its own transactions. */
export const workflow: ServicePort<Onboarding> = {
  name: "workflow",
  api: workflowApi,
  services: Onboarding.Default,
  defaultPort: 8081,
  portVariable: "WORKFLOW_PORT"
}
