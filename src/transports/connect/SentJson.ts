import type { HandlerContext } from "@connectrpc/connect"
import { protoPath, spelledIn } from "../../domain/FieldNames.js"
import type { FieldNaming } from "../ErrorTable.js"

/*
 * How a Connect or gRPC refusal names a field in its details (contract §3.7): a JSON request as
 * the caller spelled the field (`fullName` or `full_name`, both read: contract §3.2), protobuf
 * binary and gRPC by its proto name (`full_name`).
 *
 * connect-es turns a JSON request's text into a message, which does not remember which name a key
 * had; the one place that sees the text is the JSON read options' decoder (jsonReadOptions.ts). It
 * hands the JSON it read to the handler here. For a Connect unary call connect-es decodes the
 * message and then calls the handler with no await between (connect 2.1.1,
 * protocol-connect/handler-factory.js), so the JSON the handler takes as it starts is its own. A
 * per-request store (AsyncLocalStorage) would say the same at the cost of a promise hook on every
 * promise of the process (Node 20).
 */

let decoded: unknown = undefined

/** The JSON of the request message just read, for its handler. */
export const jsonRead = (json: unknown): void => {
  decoded = json
}

/** Whether the call's message came as Connect JSON: a POST of `application/json`, or a GET with `encoding=json`. */
const connectJson = (context: HandlerContext): boolean =>
  context.requestMethod === "GET"
    ? new URL(context.url).searchParams.get("encoding") === "json"
    : /^application\/json(;|$)/i.test(context.requestHeader.get("content-type") ?? "")

/** Whether the call came as gRPC or gRPC-Web (their binary form, or JSON: named by the proto names all the same). */
const grpc = (context: HandlerContext): boolean => /^application\/grpc/i.test(context.requestHeader.get("content-type") ?? "")

/**
 * Takes the JSON handed over for this call: called as the handler starts, before anything awaits
 * (the JSON handed over is this call's only until then).
 */
export const takeJsonRead = (): unknown => {
  const json = decoded
  decoded = undefined
  return json
}

/**
 * How this call's refusals name their fields, from the JSON `takeJsonRead` gave it: read only when
 * the call is refused, so an answered call reads no header for it.
 */
export const fieldNamingOf = (context: HandlerContext, json: unknown): FieldNaming =>
  !grpc(context) && connectJson(context) ? spelledIn(json) : protoPath
