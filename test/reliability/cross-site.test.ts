import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Services } from "../support/Services.js"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"
import { inProcessServers } from "../support/InProcessServers.js"
import { SqlServices } from "../support/SqlServices.js"
import { recordFigures } from "../support/Figures.js"
import { rowCounts } from "../support/rows.js"
import { testDatabaseKind } from "../support/TestDatabase.js"
import { type Attempt, license, org, simpleContentTypes, stateChangingRoutes } from "./support/crossSite.js"
import { httpCall } from "./support/wire.js"

/**
 * What a web page can make the user's browser send to any site without asking it first (no CORS
 * preflight): GET, HEAD and POST with no Content-Type, `text/plain`,
 * `application/x-www-form-urlencoded` or `multipart/form-data` (an HTML form, a `fetch` with
 * `mode: "no-cors"`, `navigator.sendBeacon`). Such a request to a state-changing route of any
 * style must create nothing, or every page the user visits could create orgs and workflows on a
 * service without a token. Each route is walked with each of those types (and none), its body
 * the one that route's own clients send, then read back; the same body with the route's own type
 * creates the record, so the walk is of routes that really create. The browser itself sends
 * them in test/e2e/cross-site-browser.test.ts.
 */

/** Creates over GET, which a link, an image or a navigation sends: GraphQL mutations and Connect GET of a create. */
const getRoutes = (): ReadonlyArray<{ readonly route: string; readonly port: keyof ServiceUrls; readonly path: string; readonly readBack: string }> => {
  const orgId = randomUUID()
  const graphqlOrgId = randomUUID()
  const workflowId = randomUUID()
  const message = encodeURIComponent(JSON.stringify(org("Connect GET", orgId)))
  const mutation = `mutation { createOrg(input: { id: "${graphqlOrgId}", name: "Cross-site GET" }) { org { id } } }`
  const workflowMutation = `mutation { createOnboardingWorkflow(input: { workflowOptions: { workflowId: "${workflowId}" }, ` +
    `license: { start: "${license.start}", end: "${license.end}" }, org: { name: "GET" }, profile: { fullName: "GET" } }) { workflowId } }`
  return [
    {
      route: "Connect GET /org.v1beta1.OrgService/CreateOrg",
      port: "org",
      path: `/org.v1beta1.OrgService/CreateOrg?connect=v1&encoding=json&message=${message}`,
      readBack: `/orgs/${orgId}`
    },
    {
      route: "GraphQL GET /graphql?query=mutation",
      port: "org",
      path: `/graphql?query=${encodeURIComponent(mutation)}`,
      readBack: `/orgs/${graphqlOrgId}`
    },
    {
      route: "GraphQL GET /graphql?query=mutation (workflow)",
      port: "workflow",
      path: `/graphql?query=${encodeURIComponent(workflowMutation)}`,
      readBack: `/workflow/workflows/onboarding/${workflowId}`
    }
  ]
}

const send = (urls: ServiceUrls, attempt: Attempt, contentType: string | undefined) =>
  httpCall(`${urls[attempt.port]}${attempt.path}`, {
    method: attempt.method,
    // A body of bytes: fetch adds no Content-Type of its own to one (it would add text/plain to a string).
    body: typeof attempt.body === "string" ? Buffer.from(attempt.body) : attempt.body,
    ...(contentType === undefined ? {} : { headers: { "content-type": contentType } })
  })

const exists = (urls: ServiceUrls, port: keyof ServiceUrls, path: string) =>
  fetch(`${urls[port]}${path}`).then((reply) => reply.status)

describe(`cross-site requests create nothing (${testDatabaseKind})`, () => {
  layer(inProcessServers({}, SqlServices), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every state-changing route creates its record with its own Content-Type (the walk is of real routes)", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        for (const make of stateChangingRoutes) {
          const attempt = make()
          const reply = yield* Effect.promise(() => send(urls, attempt, attempt.ownType))
          const where = { route: attempt.route, port: attempt.port }
          expect({ ...where, status: reply.status }).toEqual({ ...where, status: 200 })
          expect({ ...where, read: yield* Effect.promise(() => exists(urls, attempt.port, attempt.readBack)) }).toEqual({ ...where, read: 200 })
        }
      }))

    it.effect("no route takes a body with no Content-Type, text/plain, a form's or multipart: 415, nothing stored", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        const answers: Array<unknown> = []
        for (const make of stateChangingRoutes) {
          for (const contentType of simpleContentTypes) {
            const attempt = make()
            const reply = yield* Effect.promise(() => send(urls, attempt, contentType))
            const read = yield* Effect.promise(() => exists(urls, attempt.port, attempt.readBack))
            answers.push({ port: attempt.port, route: attempt.route, contentType, status: reply.status, read })
          }
        }
        recordFigures(`cross-site-${testDatabaseKind === "PostgreSQL" ? "postgresql" : "embedded"}`, {
          routes: stateChangingRoutes.length,
          attempts: answers.length,
          created: answers.filter((answer: any) => answer.read !== 404).length,
          statuses: answers.reduce((counts: Record<number, number>, answer: any) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }), {})
        })
        expect(answers).toEqual(answers.map((answer: any) => ({ ...answer, status: 415, read: 404 })))
        expect(yield* rowCounts).toEqual(before)
      }))

    it.effect("a create over GET (a GraphQL mutation, a Connect GET of a create) is refused with 405, nothing stored", () =>
      Effect.gen(function*() {
        const urls = yield* Services
        const before = yield* rowCounts
        for (const route of getRoutes()) {
          const reply = yield* Effect.promise(() => httpCall(`${urls[route.port]}${route.path}`))
          const read = yield* Effect.promise(() => exists(urls, route.port, route.readBack))
          expect({ route: route.route, status: reply.status, read }).toEqual({ route: route.route, status: 405, read: 404 })
        }
        expect(yield* rowCounts).toEqual(before)
      }))
  })
})
