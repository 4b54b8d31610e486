import { base64Decode } from "@bufbuild/protobuf/wire"
import type { UniversalHandler } from "@connectrpc/connect/protocol"
import { isUtf8QueryValue, notUtf8, rawMessageParameter } from "./lenientUtf8.js"

/**
 * What a caller sent on a Connect GET that connect-es would misread: a `message` that is not
 * UTF-8 (correction 3, lenientUtf8) or not base64 with `base64=1` (correction 5,
 * undecodableAsInternal). Refused before the router, as invalid_argument.
 */
export const getQueryRefusal = (handler: UniversalHandler, url: string): string | undefined => {
  const query = url.indexOf("?") === -1 ? "" : url.slice(url.indexOf("?") + 1)
  const params = new URLSearchParams(query)
  const encoding = params.get("encoding")
  if (!handler.allowedMethods.includes("GET") || (encoding !== "json" && encoding !== "proto")) return undefined
  if (params.get("base64") === "1") {
    try {
      base64Decode(params.get("message") ?? "")
      return undefined
    } catch {
      return "message: the query parameter is not base64 (base64=1)"
    }
  }
  const raw = encoding === "json" ? rawMessageParameter(query) : undefined
  return raw !== undefined && !isUtf8QueryValue(raw) ? `message: ${notUtf8}` : undefined
}
