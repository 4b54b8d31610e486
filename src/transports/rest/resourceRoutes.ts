import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Schema } from "effect"
import type { DomainError } from "../../domain/Errors.js"
import { validate } from "../../domain/Validation.js"
import { jsonObjectBody, withPathId } from "./RequestBody.js"
import { refuseOtherMethods, restCall } from "./RestCall.js"

/** The path's `:id`, as the caller wrote it (validated with the resource's id schema). */
export const pathId = Effect.map(HttpRouter.params, (params) => params["id"] ?? "")

/**
 * A resource created under the caller's id and read back (design §3.5): `POST` or `PUT
 * /<plural>/{id}` with the fields as JSON, `GET /<plural>/{id}`; replies are `{<name>: {...}}`
 * in proto3 JSON names, which is what the domain Schema encodes to.
 */
export const resourceRoutes = <A, I, Id, R>(resource: {
  readonly path: `/${string}`
  readonly name: string
  readonly id: Schema.Schema<Id, string>
  readonly model: Schema.Schema<A, I>
  readonly create: (value: A) => Effect.Effect<A, DomainError, R>
  readonly get: (id: Id) => Effect.Effect<A, DomainError, R>
}) => {
  const byId = Schema.Struct({ id: resource.id })
  const toJson = Schema.encodeSync(resource.model)
  const reply = (value: A) => ({ [resource.name]: toJson(value) })

  const create = restCall(Effect.gen(function*() {
    const body = yield* jsonObjectBody
    const value = yield* validate(resource.model)(yield* withPathId(body, yield* pathId))
    return reply(yield* resource.create(value))
  }))

  const get = restCall(Effect.gen(function*() {
    const { id } = yield* validate(byId)({ id: yield* pathId })
    return reply(yield* resource.get(id))
  }))

  const item: `/${string}` = `${resource.path}/:id`
  return HttpRouter.empty.pipe(
    HttpRouter.get(item, get),
    HttpRouter.post(item, create),
    HttpRouter.put(item, create),
    refuseOtherMethods(item, ["GET", "POST", "PUT"])
  )
}
