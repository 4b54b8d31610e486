/**
 * Baseline (a): the cost floor of Node and PostgreSQL. A bare `node:http` server on the REST paths
 * of contract §5 (docs/contract.md) doing exactly the services' statements through `pg`; no framework, no schema
 * validation, no error table. Env: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { type Created, openStore } from "./store.js"

const store = openStore(process.env["DATABASE_URL"] ?? "", Number(process.env["DATABASE_POOL_SIZE"] ?? 10))

const send = (response: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

const readJson = (request: http.IncomingMessage): Promise<Record<string, any>> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      } catch (error) {
        reject(error)
      }
    })
    request.on("error", reject)
  })

const created = <A>(response: http.ServerResponse, name: string, result: Created<A>) =>
  result.kind === "ok" ? send(response, 200, { [name]: result.value }) : send(response, 409, { code: 6 })

const found = <A>(response: http.ServerResponse, name: string, row: A | undefined) =>
  row === undefined ? send(response, 404, { code: 5 }) : send(response, 200, { [name]: row })

const route = async (request: http.IncomingMessage, response: http.ServerResponse) => {
  const [, collection, id, ...rest] = (request.url ?? "/").split("/")
  const method = request.method
  if (collection === "workflow" && method === "POST") {
    const body = await readJson(request)
    return send(response, 200, await store.createWorkflow({
      orgName: body.org.name,
      fullName: body.profile.fullName ?? body.profile.full_name,
      start: body.license.start,
      end: body.license.end
    }))
  }
  if (id === undefined || rest.length > 0) return send(response, 404, { code: 5 })
  const write = method === "POST" || method === "PUT"
  switch (collection) {
    case "orgs":
      if (!write) return found(response, "org", await store.getOrg(id))
      return created(response, "org", await store.createOrg({ id, name: (await readJson(request)).name }))
    case "profiles": {
      if (!write) return found(response, "profile", await store.getProfile(id))
      const body = await readJson(request)
      return created(response, "profile", await store.createProfile({
        id,
        fullName: body.fullName ?? body.full_name,
        orgId: body.orgId ?? body.org_id
      }))
    }
    case "licenses": {
      if (!write) return found(response, "license", await store.getLicense(id))
      const body = await readJson(request)
      return created(response, "license", await store.createLicense({
        id,
        userId: body.userId ?? body.user_id,
        start: body.start,
        end: body.end
      }))
    }
  }
  return send(response, 404, { code: 5 })
}

const server = http.createServer((request, response) => {
  route(request, response).catch((error: unknown) => send(response, 500, { code: 13, message: String(error) }))
})
server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1", () => {
  console.log(`listening on ${(server.address() as AddressInfo).port}`)
})
process.on("SIGTERM", () => server.close(() => void store.close()))
