import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf"
import { type Client, ConnectError, createClient, type Transport } from "@connectrpc/connect"
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { Cause, Effect, Exit } from "effect"
import * as http2 from "node:http2"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import { LicenseService } from "../../../src/gen/license/v1beta1/license_pb.js"
import { OrgService } from "../../../src/gen/org/v1beta1/org_pb.js"
import { ProfileService } from "../../../src/gen/profile/v1beta1/profile_pb.js"
import { WorkflowService } from "../../../src/gen/workflow/v1beta1/workflow_pb.js"
import { rpcProtocol } from "../../../src/client/RpcProtocol.js"
import type { ServiceUrls } from "../../e2e/support/StyleClient.js"

/**
 * Raw callers for every access style, for tests that send what no well-behaved client would:
 * each answers with what came back on the wire, reduced to a status, a code and a message.
 */

/** What a refused (or accepted) call looked like on the wire. */
export interface Answer {
  /** HTTP status; undefined where the client hides it (@grpc/grpc-js, the typed clients). */
  readonly status: number | undefined
  /**
   * Connect: the code's name (`invalid_argument`); gRPC and gRPC-Web: the grpc-status number;
   * REST: the body's numeric code; GraphQL: the first error's `extensions.code`; Effect RPC: the
   * error's tag, or `Defect`; `"ok"` for a success.
   */
  readonly code: string | number | undefined
  readonly message: string
  /** The parsed body (JSON styles) or the decoded response, for shape checks. */
  readonly body?: unknown
  readonly headers?: Headers
}

export type Port = keyof ServiceUrls

// ---------------------------------------------------------------------------------------------
// Plain HTTP (Connect, REST, GraphQL, /rpc)

export interface HttpReply {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Buffer
  readonly text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const httpCall = async (
  url: string,
  init: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string | Uint8Array } = {}
): Promise<HttpReply> => {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.body === undefined ? {} : { body: init.body })
  })
  const bytes = Buffer.from(await response.arrayBuffer())
  const text = bytes.toString("utf8")
  return { status: response.status, headers: response.headers, bytes, text, json: parseJson(text) }
}

/**
 * Bytes written straight to a port's socket, for what no HTTP client will send (an HTTP/1.0
 * request without Host, a lying Content-Length). Answers with the first response's status line
 * and body, as far as they arrive before the connection closes (or `waitMs` passes).
 */
export const rawHttp = (baseUrl: string, text: string | Buffer, waitMs = 3_000): Promise<Answer & { readonly raw: string }> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(baseUrl)
    const socket = net.connect(Number(port), hostname, () => socket.write(text))
    let raw = ""
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1]
      const body = raw.slice(raw.indexOf("\r\n\r\n") + 4)
      const json = parseJson(body) as { code?: unknown; message?: unknown } | undefined
      resolve({
        status: status === undefined ? undefined : Number(status),
        code: typeof json?.code === "string" || typeof json?.code === "number" ? json.code : undefined,
        message: typeof json?.message === "string" ? json.message : "",
        body: json ?? body,
        raw
      })
    }
    const timer = setTimeout(done, waitMs)
    socket.on("data", (chunk) => (raw += chunk.toString("latin1")))
    socket.on("close", done)
    socket.on("error", done)
  })

/** `GET /healthz` on a port: the process still answers. */
export const healthz = (baseUrl: string): Promise<number> => fetch(`${baseUrl}/healthz`).then((r) => r.status)

const connectAnswer = (reply: HttpReply): Answer => ({
  status: reply.status,
  code: reply.json?.code ?? (reply.status === 200 ? "ok" : undefined),
  message: typeof reply.json?.message === "string" ? reply.json.message : "",
  body: reply.json,
  headers: reply.headers
})

/** A Connect unary call by hand: `POST /<service>/<method>` with the given body and content type. */
export const connectPost = async (
  baseUrl: string,
  path: string,
  body: string | Uint8Array,
  contentType = typeof body === "string" ? "application/json" : "application/proto",
  method = "POST"
): Promise<Answer> =>
  connectAnswer(await httpCall(`${baseUrl}/${path}`, { method, headers: { "content-type": contentType }, body }))

/** A Connect GET (`?encoding=...&message=...`), as the protocol allows for side-effect-free methods. */
export const connectGet = async (baseUrl: string, path: string, query: string): Promise<Answer> =>
  connectAnswer(await httpCall(`${baseUrl}/${path}?${query}`))

/**
 * A Connect streaming call (`application/connect+proto`) with a body of our making: the error, if
 * any, is in the EndStreamResponse envelope (flag 0x02) that closes the body.
 */
export const connectStream = async (baseUrl: string, path: string, body: Uint8Array): Promise<Answer> => {
  const reply = await httpCall(`${baseUrl}/${path}`, { headers: { "content-type": "application/connect+proto" }, body })
  let end: any
  for (let offset = 0; offset + 5 <= reply.bytes.length;) {
    const length = reply.bytes.readUInt32BE(offset + 1)
    if ((reply.bytes[offset]! & 0x02) !== 0) end = parseJson(reply.bytes.subarray(offset + 5, offset + 5 + length).toString("utf8"))
    offset += 5 + length
  }
  return {
    status: reply.status,
    code: end?.error?.code ?? (end === undefined ? undefined : "ok"),
    message: end?.error?.message ?? "",
    body: end
  }
}

/** REST: the reply's status and its `{code, message, details}`. */
export const restCall = async (
  url: string,
  method: string,
  body?: string,
  contentType: string | undefined = "application/json"
): Promise<Answer> => {
  const reply = await httpCall(url, {
    method,
    ...(contentType === undefined ? {} : { headers: { "content-type": contentType } }),
    ...(body === undefined ? {} : { body })
  })
  return {
    status: reply.status,
    code: reply.status === 200 ? "ok" : reply.json?.code,
    message: reply.json?.message ?? "",
    body: reply.json,
    headers: reply.headers
  }
}

export const graphqlResponseJson = "application/graphql-response+json"

/** GraphQL over HTTP: the first error's code and message, or "ok" when there is no error. */
export const graphqlCall = async (
  baseUrl: string,
  body: string,
  options: { readonly accept?: string; readonly contentType?: string; readonly method?: string } = {}
): Promise<Answer> => {
  const reply = await httpCall(`${baseUrl}/graphql`, {
    method: options.method ?? "POST",
    headers: {
      ...(options.contentType === "" ? {} : { "content-type": options.contentType ?? "application/json" }),
      accept: options.accept ?? graphqlResponseJson
    },
    body
  })
  const error = reply.json?.errors?.[0]
  return {
    status: reply.status,
    code: error === undefined ? (reply.status === 200 ? "ok" : undefined) : error.extensions?.code,
    message: error?.message ?? "",
    body: reply.json,
    headers: reply.headers
  }
}

export const graphqlGet = async (baseUrl: string, query: string): Promise<Answer> => {
  const reply = await httpCall(`${baseUrl}/graphql?query=${encodeURIComponent(query)}`, {
    headers: { accept: graphqlResponseJson }
  })
  const error = reply.json?.errors?.[0]
  return {
    status: reply.status,
    code: error === undefined ? (reply.status === 200 ? "ok" : undefined) : error.extensions?.code,
    message: error?.message ?? "",
    body: reply.json
  }
}

/**
 * A raw POST to `/rpc` (@effect/rpc, JSON serialization): the reply is a list of frames. An
 * `Exit` failure answers with its error's tag (or `Die`), a protocol-level refusal with `Defect`.
 */
export const rpcPost = async (baseUrl: string, body: string | Uint8Array, contentType = "application/json"): Promise<Answer> => {
  const reply = await httpCall(`${baseUrl}/rpc`, { headers: { "content-type": contentType }, body })
  const frame = Array.isArray(reply.json) ? reply.json[0] : undefined
  if (frame?._tag === "Exit") {
    const exit = frame.exit
    if (exit._tag === "Success") return { status: reply.status, code: "ok", message: "", body: reply.json }
    const cause = exit.cause
    return cause._tag === "Fail"
      ? { status: reply.status, code: cause.error._tag, message: cause.error.message, body: reply.json }
      : { status: reply.status, code: cause._tag, message: JSON.stringify(cause), body: reply.json }
  }
  if (frame?._tag === "Defect") {
    return { status: reply.status, code: "Defect", message: JSON.stringify(frame.defect), body: reply.json }
  }
  return { status: reply.status, code: reply.json?.code, message: reply.json?.message ?? reply.text, body: reply.json }
}

/** An @effect/rpc request frame. */
export const rpcRequest = (tag: string, payload: unknown, id = "1") =>
  JSON.stringify({ _tag: "Request", id, tag, payload, headers: [] })

/** The typed @effect/rpc client of a group, run once; a typed failure answers with its tag. */
export const rpcTyped = async <A>(
  url: string,
  call: Effect.Effect<A, { readonly _tag: string; readonly message: string }, any>
): Promise<Answer> => {
  const exit = await Effect.runPromiseExit(
    Effect.scoped(call).pipe(Effect.provide(rpcProtocol(`${url}/rpc`))) as Effect.Effect<A, { _tag: string; message: string }>
  )
  if (Exit.isSuccess(exit)) return { status: undefined, code: "ok", message: "", body: exit.value }
  const failure = Cause.failureOption(exit.cause)
  return failure._tag === "Some"
    ? { status: undefined, code: failure.value._tag, message: failure.value.message }
    : { status: undefined, code: "Defect", message: Cause.pretty(exit.cause) }
}

// ---------------------------------------------------------------------------------------------
// Enveloped protocols (gRPC, gRPC-Web) by hand

/** One length-prefixed message: a flags byte, a 4-byte big-endian length, the data. */
export const envelope = (data: Uint8Array, flags = 0): Buffer => {
  const out = Buffer.alloc(5 + data.length)
  out[0] = flags
  out.writeUInt32BE(data.length, 1)
  out.set(data, 5)
  return out
}

const percentDecoded = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * A gRPC call over cleartext HTTP/2 with a body of our making. The status comes from the trailers
 * (or, trailers-only, the headers); a non-gRPC answer (415, 404) leaves `code` undefined.
 * `bodyDelayMillis` sends the message that long after the headers (a deadline can pass meanwhile).
 */
export const grpcRaw = (
  baseUrl: string,
  path: string,
  body: Uint8Array,
  headers: Record<string, string> = {},
  bodyDelayMillis = 0
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const session = http2.connect(baseUrl)
    session.on("error", reject)
    const stream = session.request({
      ":method": "POST",
      ":path": `/${path}`,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers
    })
    let status: number | undefined
    let fields: Record<string, unknown> = {}
    const chunks: Array<Buffer> = []
    stream.on("response", (h) => {
      status = Number(h[":status"])
      fields = { ...h }
    })
    stream.on("trailers", (t) => {
      fields = { ...fields, ...t }
    })
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("error", (error) => {
      session.close()
      reject(error)
    })
    stream.on("end", () => {
      session.close()
      const grpcStatus = fields["grpc-status"]
      resolve({
        status,
        code: grpcStatus === undefined ? undefined : Number(grpcStatus),
        message: percentDecoded(String(fields["grpc-message"] ?? "")),
        body: Buffer.concat(chunks)
      })
    })
    if (bodyDelayMillis === 0) stream.end(Buffer.from(body))
    else setTimeout(() => stream.end(Buffer.from(body)), bodyDelayMillis)
  })

/** The trailer envelope (flag 0x80) of a gRPC-Web body, as name -> value. */
const grpcWebTrailers = (body: Buffer): Record<string, string> => {
  let offset = 0
  while (offset + 5 <= body.length) {
    const flags = body[offset]!
    const length = body.readUInt32BE(offset + 1)
    const data = body.subarray(offset + 5, offset + 5 + length)
    if ((flags & 0x80) !== 0) {
      return Object.fromEntries(
        data.toString("utf8").split("\r\n").filter((line) => line.includes(":")).map((line) => {
          const colon = line.indexOf(":")
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
        })
      )
    }
    offset += 5 + length
  }
  return {}
}

/** A gRPC-Web call over HTTP/1.1 with a body of our making. */
export const grpcWebRaw = async (
  baseUrl: string,
  path: string,
  body: Uint8Array | string,
  contentType = "application/grpc-web+proto"
): Promise<Answer> => {
  const reply = await httpCall(`${baseUrl}/${path}`, {
    headers: { "content-type": contentType, "x-grpc-web": "1" },
    body
  })
  const trailers = grpcWebTrailers(reply.bytes)
  return {
    status: reply.status,
    code: trailers["grpc-status"] === undefined ? undefined : Number(trailers["grpc-status"]),
    message: percentDecoded(trailers["grpc-message"] ?? ""),
    body: reply.bytes
  }
}

// ---------------------------------------------------------------------------------------------
// Well-formed clients: connect-node (Connect binary, gRPC, gRPC-Web) and @grpc/grpc-js

export const services = {
  org: OrgService,
  profile: ProfileService,
  license: LicenseService,
  workflow: WorkflowService
} as const

export type ServiceDescriptors = typeof services

export const connectNodeTransports = {
  "Connect binary (connect-node, HTTP/2)": (baseUrl: string) =>
    createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true }),
  "gRPC (connect-node)": (baseUrl: string) => createGrpcTransport({ baseUrl }),
  "gRPC-Web (connect-node)": (baseUrl: string) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1" })
} as const

export type ConnectNodeStyle = keyof typeof connectNodeTransports

/** A connect-node client's refusal: the ConnectError's numeric code and its message as sent. */
export const connectNodeCall = async (call: () => Promise<unknown>): Promise<Answer> => {
  try {
    const body = await call()
    return { status: undefined, code: "ok", message: "", body }
  } catch (error) {
    if (error instanceof ConnectError) return { status: undefined, code: error.code, message: error.rawMessage }
    throw error
  }
}

/** Clients per (style, port), made once: their HTTP/2 sessions are reused. */
export const connectNodeClients = () => {
  const made = new Map<string, Client<any>>()
  return <P extends Port>(style: ConnectNodeStyle, port: P, baseUrl: string): Client<ServiceDescriptors[P]> => {
    const key = `${style} ${baseUrl}`
    let client = made.get(key)
    if (client === undefined) {
      client = createClient(services[port], connectNodeTransports[style](baseUrl) as Transport)
      made.set(key, client)
    }
    return client as Client<ServiceDescriptors[P]>
  }
}

const protoDir = fileURLToPath(new URL("../../../proto/", import.meta.url))
const grpcDefinition = protoLoader.loadSync(
  ["org/v1beta1/org.proto", "profile/v1beta1/profile.proto", "license/v1beta1/license.proto", "workflow/v1beta1/workflow.proto"],
  { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [protoDir] }
)

const grpcTarget = (baseUrl: string) => new URL(baseUrl).host

/**
 * @grpc/grpc-js, as the classic Node stack sends: `request` is serialized with the method's
 * message type from the .proto files, or, as `bytes`, sent exactly as given (garbage included).
 */
export const grpcJsCall = (
  baseUrl: string,
  path: string,
  request: { readonly message: object } | { readonly bytes: Uint8Array },
  options: { readonly deadline?: number } = {}
): Promise<Answer> =>
  new Promise((resolve) => {
    const [service, method] = path.split("/") as [string, string]
    const definition = (grpcDefinition[service] as Record<string, any> | undefined)?.[method]
    const serialize = "bytes" in request
      ? () => Buffer.from(request.bytes)
      : (value: object) => definition.requestSerialize(value) as Buffer
    const client = new grpc.Client(grpcTarget(baseUrl), grpc.credentials.createInsecure())
    client.makeUnaryRequest<object, unknown>(
      `/${path}`,
      serialize,
      (bytes: Buffer) => definition?.responseDeserialize(bytes) ?? bytes,
      "bytes" in request ? {} : request.message,
      new grpc.Metadata(),
      { deadline: options.deadline ?? Date.now() + 10_000 },
      (error, response) => {
        client.close()
        resolve(
          error
            ? { status: undefined, code: (error as grpc.ServiceError).code, message: (error as grpc.ServiceError).details }
            : { status: undefined, code: "ok", message: "", body: response }
        )
      }
    )
  })

/** The binary protobuf encoding of a request, for the raw callers. */
export const protoBytes = <D extends DescMessage>(schema: D, init: MessageInitShape<D>): Uint8Array =>
  toBinary(schema, create(schema, init))
