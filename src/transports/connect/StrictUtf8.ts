import { Code, ConnectError } from "@connectrpc/connect"
import type { RequestHandler } from "../http/PortListener.js"
import { refuse } from "../http/Refusal.js"

/**
 * JSON request messages (Connect JSON, gRPC and gRPC-Web with the JSON codec) must be UTF-8.
 * connect-es decodes them with a lenient TextDecoder, which turns every byte that is not UTF-8
 * into U+FFFD: the caller's text would be stored changed without a word, while binary protobuf
 * refuses the same bytes. Such a message is refused as invalid_argument instead.
 * (A charset other than UTF-8 connect-es already refuses with 415.)
 */

// Not http/Utf8Text: connect-es drops a leading BOM from JSON, as its own decoder always did.
const fatal = new TextDecoder("utf-8", { fatal: true })

const notUtf8 = "the request message is not valid UTF-8"

/** connect-node's `jsonOptions`, for every service on the port. */
export const connectJsonOptions = {
  // Forward compatibility: a newer client's extra JSON fields are ignored, as binary protobuf does.
  ignoreUnknownFields: true,
  textDecoder: {
    decode: (input?: Uint8Array): string => {
      try {
        return fatal.decode(input)
      } catch {
        throw new ConnectError(notUtf8, Code.InvalidArgument)
      }
    }
  }
} as const

/**
 * A Connect GET carries its JSON message percent-encoded in the query (`?encoding=json&message=`),
 * and the query is decoded with URLSearchParams, which also puts U+FFFD where the bytes are not
 * UTF-8, before connect-es sees the text. `decodeURIComponent` refuses those bytes, so it is the
 * check (a `%` that starts no escape is taken literally, as URLSearchParams does).
 */
const isUtf8QueryValue = (raw: string): boolean => {
  try {
    decodeURIComponent(raw.replace(/\+/g, " ").replace(/%(?![0-9a-fA-F]{2})/g, "%25"))
    return true
  } catch {
    return false
  }
}

/** The raw `message` parameter of a Connect GET with `encoding=json` (not base64), if any. */
const rawJsonMessage = (url: string): string | undefined => {
  const query = url.indexOf("?") === -1 ? "" : url.slice(url.indexOf("?") + 1)
  const params = new URLSearchParams(query)
  if (params.get("encoding") !== "json" || params.get("base64") === "1") return undefined
  for (const part of query.split("&")) {
    const equals = part.indexOf("=")
    const key = equals === -1 ? part : part.slice(0, equals)
    if (new URLSearchParams(`${key}=`).has("message")) return equals === -1 ? "" : part.slice(equals + 1)
  }
  return undefined
}

export const withUtf8GetMessages = (handler: RequestHandler): RequestHandler => (request, response) => {
  if (request.method === "GET") {
    const message = rawJsonMessage(request.url ?? "/")
    if (message !== undefined && !isUtf8QueryValue(message)) {
      return refuse(request, response, { kind: "InvalidArgument", message: `message: ${notUtf8}` })
    }
  }
  handler(request, response)
}
