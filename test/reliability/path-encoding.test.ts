import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Services } from "../support/Services.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { rowCounts } from "../support/rows.js"
import { httpCall } from "./support/wire.js"

/**
 * A REST path whose percent-escapes are not UTF-8 (`/orgs/%ff%fe`) is the caller's mistake: 400
 * with the REST error body. The router finds no route for such a path, and it used to be
 * answered as a path of the port with another method (405, `Allow: GET, POST, PUT`).
 */

const badPaths = ["/orgs/%ff%fe", "/orgs/%zz", "/profiles/%c3", "/licenses/a%ffb", "/workflow/workflows/onboarding/%ff", "/nowhere/%ff"]
const invalid = { code: 3, message: "the path is not valid percent-encoded UTF-8", details: [] }

describe("REST paths with broken percent-encoding", () => {
  layer(inProcessServers(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("are 400 invalid_argument for every method, nothing stored", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        for (const path of badPaths) {
          const service = path.split("/")[1]
          const port = service === "workflow" ? urls.workflow : service === "profiles" ? urls.profile : service === "licenses" ? urls.license : urls.org
          for (const method of ["GET", "POST", "PUT", "DELETE"]) {
            const reply = yield* Effect.promise(() =>
              httpCall(`${port}${path}`, {
                method,
                ...(method === "POST" || method === "PUT" ? { headers: { "content-type": "application/json" }, body: `{"name":"x"}` } : {})
              })
            )
            expect({ path, method, status: reply.status, body: reply.json }).toEqual({ path, method, status: 400, body: invalid })
          }
        }
        expect(yield* rowCounts).toEqual(before)
      }))

    it.effect("well-encoded paths keep their answers: an id that is not a UUID is 400 on its field, another method 405", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const accented = yield* Effect.promise(() => httpCall(`${urls.org}/orgs/%C3%A9`))
        expect({ status: accented.status, code: accented.json.code, message: accented.json.message }).toEqual({
          status: 400,
          code: 3,
          message: expect.stringMatching(/^id: /)
        })
        const deleted = yield* Effect.promise(() => httpCall(`${urls.org}/orgs/${randomUUID()}`, { method: "DELETE" }))
        expect({ status: deleted.status, allow: deleted.headers.get("allow") }).toEqual({ status: 405, allow: "GET, POST, PUT" })
        expect((yield* Effect.promise(() => httpCall(`${urls.org}/nowhere`))).status).toBe(404)
      }))
  })
})
