import type { OutgoingHttpHeaders } from "node:http"
import type { RequestHandler } from "../http/PortListener.js"

/**
 * The gRPC spec percent-encodes `grpc-message` minimally: printable ASCII stays as it is, only `%`
 * and other bytes are escaped. connect-node escapes everything `encodeURIComponent` does, and
 * @grpc/grpc-js decodes with `decodeURI`, which leaves `%3A` and friends in place, so its users
 * would read "id%3A must be a UUID". Re-encoding the header the spec's way reads right everywhere.
 */
const specEncoding = (value: string): string => {
  let decoded: string
  try {
    decoded = decodeURIComponent(value)
  } catch {
    return value
  }
  let out = ""
  for (const byte of Buffer.from(decoded, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

const reencode = (headers: OutgoingHttpHeaders | undefined): void => {
  if (headers === undefined) return
  for (const name of Object.keys(headers)) {
    const value = headers[name]
    if (name.toLowerCase() === "grpc-message" && typeof value === "string") headers[name] = specEncoding(value)
  }
}

/** Applies to gRPC (not gRPC-Web, whose clients decode fully) responses of `handler`. */
export const withSpecGrpcMessage = (handler: RequestHandler): RequestHandler => (request, response) => {
  const contentType = request.headers["content-type"] ?? ""
  if (contentType.startsWith("application/grpc") && !contentType.startsWith("application/grpc-web")) {
    const writeHead = response.writeHead.bind(response) as (status: number, headers?: OutgoingHttpHeaders) => unknown
    const addTrailers = response.addTrailers.bind(response)
    Object.assign(response, {
      writeHead: (status: number, headers?: OutgoingHttpHeaders) => {
        reencode(headers)
        return writeHead(status, headers)
      },
      addTrailers: (trailers: OutgoingHttpHeaders) => {
        reencode(trailers)
        addTrailers(trailers)
      }
    })
  }
  handler(request, response)
}
