import { create } from "@bufbuild/protobuf"
import type { ServiceImpl } from "@connectrpc/connect"
import { Effect } from "effect"
import {
  CreateOrgResponseSchema,
  GetOrgResponseSchema,
  ListOrgsResponseSchema,
  type OrgService
} from "../../gen/org/v1beta1/org_pb.js"
import { operation } from "../../operations/Operation.js"
import { type OrgHandlers, OrgOperations } from "../../operations/OrgOperations.js"
import type { EffectCall } from "./EffectCall.js"
import { orgFields } from "./ProtoCodec.js"

const createOrg = operation(OrgOperations, "CreateOrg")
const getOrg = operation(OrgOperations, "GetOrg")
const listOrgs = operation(OrgOperations, "ListOrgs")

export const orgService = (call: EffectCall<OrgHandlers>): ServiceImpl<typeof OrgService> => ({
  createOrg: (req, ctx) =>
    call(ctx, Effect.map(createOrg({ id: req.id, name: req.name }), (org) => create(CreateOrgResponseSchema, { org: orgFields(org) }))),
  getOrg: (req, ctx) =>
    call(ctx, Effect.map(getOrg({ id: req.id }), (org) => create(GetOrgResponseSchema, { org: orgFields(org) }))),
  // proto3 cannot tell 0 and "" from absent: the domain reads them as "not given".
  listOrgs: (req, ctx) =>
    call(
      ctx,
      Effect.map(listOrgs({ pageSize: req.pageSize, pageToken: req.pageToken }), (page) =>
        create(ListOrgsResponseSchema, { orgs: page.orgs.map(orgFields), nextPageToken: page.nextPageToken }))
    )
})
