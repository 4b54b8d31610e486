/**
 * What the two Connect and gRPC baselines share, so that they differ only in their handlers' data
 * access: (b), hand-written on `pg` (connectPg.ts), and (f), the minimal Effect peer on
 * `@effect/sql-pg` (connectEffect.ts). One connect-node adapter handler serves Connect (JSON and
 * binary) over HTTP/1.1 on PORT and gRPC over h2c (prior knowledge) on GRPC_PORT; the timestamp
 * conversions and the few refusals (NotFound, AlreadyExists, InvalidArgument for what the database
 * refuses) are the same in both.
 */
import { create } from "@bufbuild/protobuf"
import { type Timestamp, TimestampSchema } from "@bufbuild/protobuf/wkt"
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect"
import { connectNodeAdapter } from "@connectrpc/connect-node"
import * as http from "node:http"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import type { Created, LicenseRow } from "./store.js"

// Timestamps travel to and from PostgreSQL as text with six fractional digits, the form the
// select statement produces: `timestampDate` would drop the microseconds, and the create replay
// compares the text it sent with the text it reads back.
export const toText = (ts: Timestamp | undefined): string => {
  if (ts === undefined) throw new ConnectError("missing timestamp", Code.InvalidArgument)
  const seconds = new Date(Number(ts.seconds) * 1000).toISOString().slice(0, 19)
  return `${seconds}.${String(Math.floor(ts.nanos / 1000)).padStart(6, "0")}Z`
}
const fromText = (text: string): Timestamp =>
  create(TimestampSchema, {
    seconds: BigInt(Date.parse(`${text.slice(0, 19)}Z`) / 1000),
    nanos: Number(text.slice(20, 26).padEnd(6, "0")) * 1000
  })

export const license = (row: LicenseRow) => ({
  id: row.id,
  userId: row.userId,
  start: fromText(row.start),
  end: fromText(row.end)
})

// What the database refuses (malformed uuid, bad date, end before start) is the caller's fault;
// anything else stays an Internal error, which is what connect makes of a thrown non-ConnectError.
// The SQLSTATE is looked for on the error and what it wraps: in (f), `runPromise`'s FiberFailure
// holds the failure's Cause, whose SqlError holds `pg`'s error.
const fiberFailureCause = Symbol.for("effect/Runtime/FiberFailure/Cause")
const wrapped = (error: object): unknown => {
  const cause = (error as { [fiberFailureCause]?: { _tag?: string; error?: unknown } })[fiberFailureCause]
  return cause?._tag === "Fail" ? cause.error : (error as { cause?: unknown }).cause
}
export const refusal = (error: unknown): never => {
  for (let cause = error, depth = 0; typeof cause === "object" && cause !== null && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === "string" && (code.startsWith("22") || code === "23514")) {
      throw new ConnectError(String((cause as Error).message), Code.InvalidArgument)
    }
    cause = wrapped(cause)
  }
  throw error
}

export const created = async <A>(result: Promise<Created<A>>): Promise<A> => {
  const outcome = await result.catch(refusal)
  if (outcome.kind === "exists") throw new ConnectError("already exists with other content", Code.AlreadyExists)
  return outcome.value
}

export const found = async <A>(row: Promise<A | undefined>): Promise<A> => {
  const value = await row.catch(refusal)
  if (value === undefined) throw new ConnectError("not found", Code.NotFound)
  return value
}

/** Not measured: the run's record is only read back by the services' own tests. */
export const notMeasured = () => {
  throw new ConnectError("not part of the baseline", Code.Unimplemented)
}

const listen = (server: http.Server | http2.Http2Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

const close = (server: http.Server | http2.Http2Server) => new Promise<void>((resolve) => server.close(() => resolve()))

/** Serves `routes` on PORT (Connect) and GRPC_PORT (gRPC); prints "listening on" when both listen; `closed` on SIGTERM. */
export const serveConnect = (routes: (router: ConnectRouter) => void, closed: () => Promise<unknown>) => {
  const handler = connectNodeAdapter({
    routes,
    // As the services do: a newer client's extra JSON fields are ignored, as binary protobuf does.
    jsonOptions: { ignoreUnknownFields: true }
  })
  const connectServer = http.createServer(handler)
  const grpcServer = http2.createServer(handler)
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
  process.on("SIGTERM", () => {
    void Promise.all([close(connectServer), close(grpcServer)]).then(closed)
  })
}
