import type { UniversalHandler } from "@connectrpc/connect/protocol"
import { errorBody, errorTable, type FailureKind } from "../../ErrorTable.js"
import { answered, codeName } from "../../http/Calls.js"
import type { Request, Response } from "../../http/RequestHandler.js"
import { jsonBytes } from "./Wire.js"

/**
 * Correction 7, bodilessRefusals: a request in a content type or method no protocol takes gets 415
 * or 405 with an empty body (`uResponseUnsupportedMediaType`, `uResponseMethodNotAllowed`), which
 * tells a person with curl nothing. The same status goes out with a Connect error body that says
 * what to send (and `Allow` on a 405).
 */

const acceptedContentTypes =
  "application/json or application/proto (Connect), application/connect+json or +proto (Connect streams), " +
  "application/grpc, +proto or +json (gRPC), application/grpc-web, +proto or +json (gRPC-Web)"

export const bodilessRefusal = (
  handler: UniversalHandler,
  request: Request,
  status: number
): { readonly kind: FailureKind; readonly message: string; readonly headers: Record<string, string> } | undefined => {
  if (status === errorTable.UnsupportedMediaType.http) {
    const given = request.headers["content-type"]
    const message = request.method === "GET"
      ? "a Connect GET carries its message in the query: ?encoding=json&message=<JSON> (or encoding=proto&base64=1)"
      : `${given === undefined ? "no content type" : `content type "${given}" is not served here`}; send ${acceptedContentTypes}`
    return { kind: "UnsupportedMediaType", message, headers: {} }
  }
  if (status === errorTable.MethodNotAllowed.http) {
    const allow = handler.allowedMethods.join(", ")
    return { kind: "MethodNotAllowed", message: `method not allowed; use ${allow}`, headers: { allow } }
  }
  return undefined
}

/** A refusal as a Connect unary error: the table's HTTP status, `{code, message}` in JSON. */
export const connectJsonRefusal = (
  request: Request,
  response: Response,
  kind: FailureKind,
  message: string,
  headers: Record<string, string> = {}
) => {
  answered(request, codeName(kind))
  const body = jsonBytes(errorBody.connect(kind, message))
  response.writeHead(errorTable[kind].http, { ...headers, "content-type": "application/json", "content-length": body.byteLength })
  response.end(body)
}
