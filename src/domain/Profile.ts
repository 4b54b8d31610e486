import { Schema } from "effect"
import { OrgId, ProfileId } from "./Ids.js"
import { Name } from "./Name.js"

/** A person in an org. The org's existence is not checked on direct creates (contract §3.3). */
export class Profile extends Schema.Class<Profile>("Profile")({
  id: ProfileId,
  fullName: Name,
  orgId: OrgId
}) {}
