import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect, Schema } from "effect"
import { OrgId } from "../../domain/Ids.js"
import { Org } from "../../domain/Org.js"
import { validate } from "../../domain/Validation.js"
import { CreateOrgResponseSchema, GetOrgResponseSchema, type OrgService } from "../../gen/org/v1beta1/org_pb.js"
import { Orgs } from "../../services/Orgs.js"
import type { EffectCall } from "./EffectCall.js"
import { orgFields } from "./ProtoCodec.js"

const GetOrg = Schema.Struct({ id: OrgId })

export const orgService = (call: EffectCall<Orgs>): ServiceImpl<typeof OrgService> => ({
  createOrg: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const org = yield* validate(Org)({ id: req.id, name: req.name })
      return create(CreateOrgResponseSchema, { org: orgFields(yield* (yield* Orgs).create(org)) })
    })),

  getOrg: (req, ctx) =>
    call(ctx, Effect.gen(function*() {
      const { id } = yield* validate(GetOrg)({ id: req.id })
      return create(GetOrgResponseSchema, { org: orgFields(yield* (yield* Orgs).get(id)) })
    }))
})
