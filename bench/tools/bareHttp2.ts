/**
 * The floor the HTTP/2 attack figures are compared with: a bare node:http2 server (the compatibility
 * API, as ours uses), nothing but Node's own limits, on each port given. `GET /healthz` answers
 * 200; any other request is read to its end and answered 404.
 * Usage: node dist/bench/bench/tools/bareHttp2.js <port> [<port> ...]
 */
import * as http2 from "node:http2"

for (const port of process.argv.slice(2).map(Number)) {
  const server = http2.createServer((request, response) => {
    if (request.url === "/healthz") return void response.end("ok")
    request.resume()
    request.once("end", () => {
      response.statusCode = 404
      response.end("{}")
    })
  })
  // HTTP/1.1 probes too (allowHTTP1 needs TLS): a second server would change what is compared, so
  // the probes of this peer speak HTTP/2.
  server.listen(port, "127.0.0.1", () => console.log(`bare node:http2 listening on ${port}`))
}
