import { Schema } from "effect"
import { OrgId } from "./Ids.js"
import { Name } from "./Name.js"

export class Org extends Schema.Class<Org>("Org")({
  id: OrgId,
  name: Name
}) {}
