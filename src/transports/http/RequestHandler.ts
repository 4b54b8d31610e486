import type * as http from "node:http"
import type * as http2 from "node:http2"

/** A call as Node hands it to a port: over HTTP/1.1 or HTTP/2, the same handler serves both. */
export type Request = http.IncomingMessage | http2.Http2ServerRequest
export type Response = http.ServerResponse | http2.Http2ServerResponse
export type RequestHandler = (request: Request, response: Response) => void
