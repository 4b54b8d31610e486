/**
 * Baseline (b): a plain connect-node handler + `pg` without Effect, i.e. what a user would write
 * instead of the services. Same generated descriptors, same statements and pool (store.ts); no
 * domain validation, no error table beyond NotFound / AlreadyExists / InvalidArgument. One adapter
 * handler serves Connect (JSON and binary) over HTTP/1.1 on PORT and gRPC over h2c (prior
 * knowledge) on GRPC_PORT. Env: DATABASE_URL, PORT, GRPC_PORT, DATABASE_POOL_SIZE (10).
 */
import { create } from "@bufbuild/protobuf"
import { type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt"
import { Code, ConnectError } from "@connectrpc/connect"
import { connectNodeAdapter } from "@connectrpc/connect-node"
import * as http from "node:http"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { LicenseService } from "../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../src/gen/workflow/v1beta1/workflow_pb.js"
import { type Created, openStore } from "./store.js"

const store = openStore(process.env["DATABASE_URL"] ?? "", Number(process.env["DATABASE_POOL_SIZE"] ?? 10))

// Timestamps travel to and from PostgreSQL as text with six fractional digits, the form the
// select statement produces: `timestampDate` would drop the microseconds, and the create replay
// compares the text it sent with the text it reads back.
const toText = (ts: Timestamp | undefined): string => {
  if (ts === undefined) throw new ConnectError("missing timestamp", Code.InvalidArgument)
  const seconds = new Date(Number(ts.seconds) * 1000).toISOString().slice(0, 19)
  return `${seconds}.${String(Math.floor(ts.nanos / 1000)).padStart(6, "0")}Z`
}
const fromText = (text: string): Timestamp =>
  create(TimestampSchema, {
    seconds: BigInt(Date.parse(`${text.slice(0, 19)}Z`) / 1000),
    nanos: Number(text.slice(20, 26).padEnd(6, "0")) * 1000
  })

// What the database refuses (malformed uuid, bad date, end before start) is the caller's fault;
// anything else stays an Internal error, which is what connect makes of a thrown non-ConnectError.
const refusal = (error: unknown): never => {
  const code = (error as { code?: unknown }).code
  if (typeof code === "string" && (code.startsWith("22") || code === "23514")) {
    throw new ConnectError(String((error as Error).message), Code.InvalidArgument)
  }
  throw error
}

const created = async <A>(result: Promise<Created<A>>): Promise<A> => {
  const outcome = await result.catch(refusal)
  if (outcome.kind === "exists") throw new ConnectError("already exists with other content", Code.AlreadyExists)
  return outcome.value
}

const found = async <A>(row: Promise<A | undefined>): Promise<A> => {
  const value = await row.catch(refusal)
  if (value === undefined) throw new ConnectError("not found", Code.NotFound)
  return value
}

const license = (row: { id: string; userId: string; start: string; end: string }) => ({
  id: row.id,
  userId: row.userId,
  start: fromText(row.start),
  end: fromText(row.end)
})

const handler = connectNodeAdapter({
  routes: (router) => {
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
      // Not measured: the run's record is only read back by the services' own tests.
      getOnboardingWorkflow: () => {
        throw new ConnectError("not part of the baseline", Code.Unimplemented)
      }
    })
  },
  // As the services do: a newer client's extra JSON fields are ignored, as binary protobuf does.
  jsonOptions: { ignoreUnknownFields: true }
})

const connectServer = http.createServer(handler)
const grpcServer = http2.createServer(handler)

const listen = (server: http.Server | http2.Http2Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

Promise.all([
  listen(connectServer, Number(process.env["PORT"] ?? 0)),
  listen(grpcServer, Number(process.env["GRPC_PORT"] ?? 0))
]).then(
  ([port, grpcPort]) => console.log(`listening on ${port} ${grpcPort}`),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)

const close = (server: http.Server | http2.Http2Server) => new Promise<void>((resolve) => server.close(() => resolve()))
process.on("SIGTERM", () => {
  void Promise.all([close(connectServer), close(grpcServer)]).then(() => store.close())
})
