import { rest, segment, type Services } from "./Api.js"
import { type Child, h, id as idText, link } from "./Dom.js"
import { failureText } from "./Failure.js"
import type { Org, Profile } from "./Resources.js"
import { recordHref } from "./Route.js"

/**
 * The names a record's ids stand for, read from their own services. A record never changes once
 * made (a create with other content is refused), so a name found once is kept for the tab's life;
 * a failure is not kept, so a token entered later is used.
 */
const found = new Map<string, Promise<string>>()

const named = (key: string, read: () => Promise<string>): Promise<string> => {
  const known = found.get(key)
  if (known !== undefined) return known
  const reading = read()
  found.set(key, reading)
  reading.catch(() => found.delete(key))
  return reading
}

export const orgName = (services: Services, orgId: string) =>
  named(`org ${orgId}`, () => rest<{ org: Org }>(services, "org", `/orgs/${segment(orgId)}`).then(({ org }) => org.name))

export const profileName = (services: Services, profileId: string) =>
  named(
    `profile ${profileId}`,
    () => rest<{ profile: Profile }>(services, "profile", `/profiles/${segment(profileId)}`).then(({ profile }) => profile.fullName)
  )

/** A link to a record, its text the record's name; else its id, and why no name could be read. */
export interface NamedLink {
  readonly link: HTMLElement
  readonly failed?: unknown
}

export const namedLink = async (section: string, recordId: string, name: Promise<string>): Promise<NamedLink> => {
  try {
    return { link: link(recordHref(section, recordId), await name) }
  } catch (failed) {
    return { link: link(recordHref(section, recordId), idText(recordId)), failed }
  }
}

export const orgLink = (services: Services, orgId: string) => namedLink("orgs", orgId, orgName(services, orgId))

export const profileLink = (services: Services, profileId: string) => namedLink("profiles", profileId, profileName(services, profileId))

/** On a record page: the link, and why it shows an id rather than a name. */
export const withReason = ({ failed, link: shown }: NamedLink, what: string): Child =>
  failed === undefined ? shown : h("span", {}, shown, h("span", { class: "unnamed" }, ` (${what}'s name not shown: ${failureText(failed, what)})`))
