import { ApiError, rest, segment, type Services } from "./Api.js"
import { period, when } from "./Dates.js"
import { type Child, h, id, link, record } from "./Dom.js"
import { failure } from "./Failure.js"
import { furtherFields } from "./FurtherFields.js"
import { orgLink, profileLink, withReason } from "./Names.js"
import type { License, Org, Profile, Run } from "./Resources.js"
import { href, recordHref } from "./Route.js"
import { violationsIn } from "./Violations.js"

/**
 * One record each, read from its own service, with the names of the records it refers to (read
 * from theirs) as links, and the lists it leads to.
 */

/**
 * An address whose id the service cannot read (typed or pasted by hand), said in a sentence: the
 * rule's words are the refusal's violation's, when it has one.
 */
const notAnId = (what: string, section: string, recordId: string, error: ApiError) => {
  const rule = violationsIn(error.details)[0]?.description
  return h(
    "p",
    { class: "error", role: "alert" },
    `No ${what} can have the id “${recordId}”${rule === undefined ? "" : `: an id ${rule}`}. Check the address, or find the ${what} in `,
    link(href(section), "the list"),
    "."
  )
}

const recordPage = (heading: string, what: string, section: string, recordId: string, show: () => Promise<ReadonlyArray<Child>>) => {
  const shown = h("div", { "aria-live": "polite" }, h("p", {}, "Loading…"))
  show().then(
    (children) => shown.replaceChildren(...children.filter((child): child is Node | string => child !== undefined && child !== false)),
    (error) =>
      shown.replaceChildren(error instanceof ApiError && error.status === 400 ? notAnId(what, section, recordId, error) : failure(error, what))
  )
  return h("section", {}, h("h1", { tabindex: "-1" }, heading), shown)
}

const related = (...links: ReadonlyArray<HTMLElement>) => h("p", { class: "related" }, ...links.flatMap((each, index) => (index === 0 ? [each] : [" · ", each])))

export const orgPage = (services: Services, orgId: string) =>
  recordPage("Organization", "organization", "orgs", orgId, async () => {
    const { org } = await rest<{ org: Org }>(services, "org", `/orgs/${segment(orgId)}`)
    return [
      record([["Name", org.name], ...furtherFields(org, ["name", "id"]), ["Id", id(org.id)]]),
      related(link(href("profiles", { org: org.id }), "Profiles in this organization"))
    ]
  })

export const profilePage = (services: Services, profileId: string) =>
  recordPage("Profile", "profile", "profiles", profileId, async () => {
    const { profile } = await rest<{ profile: Profile }>(services, "profile", `/profiles/${segment(profileId)}`)
    const organization = await orgLink(services, profile.orgId)
    return [
      record([
        ["Full name", profile.fullName],
        ["Organization", withReason(organization, "organization")],
        ...furtherFields(profile, ["fullName", "orgId", "id"]),
        ["Id", id(profile.id)]
      ]),
      related(link(href("licenses", { user: profile.id }), "Licenses of this person"))
    ]
  })

export const licensePage = (services: Services, licenseId: string) =>
  recordPage("License", "license", "licenses", licenseId, async () => {
    const { license } = await rest<{ license: License }>(services, "license", `/licenses/${segment(licenseId)}`)
    const holder = await profileLink(services, license.userId)
    return [
      record([
        ["Holder", withReason(holder, "holder")],
        ["Starts", when(license.start)],
        ["Ends", when(license.end)],
        ...furtherFields(license, ["userId", "start", "end", "id"]),
        ["Id", id(license.id)]
      ])
    ]
  })

/** A run's license has no name: it is shown by its period, read from the license service. */
const licenseLink = async (services: Services, licenseId: string): Promise<Child> => {
  try {
    const { license } = await rest<{ license: License }>(services, "license", `/licenses/${segment(licenseId)}`)
    return link(recordHref("licenses", licenseId), period(license.start, license.end))
  } catch (error) {
    return h("span", {}, link(recordHref("licenses", licenseId), id(licenseId)), failure(error, "license"))
  }
}

export const runPage = (services: Services, workflowId: string) =>
  recordPage("Workflow run", "workflow run", "workflows", workflowId, async () => {
    const { workflow: run } = await rest<{ workflow: Run }>(services, "workflow", `/workflow/workflows/onboarding/${segment(workflowId)}`)
    const [organization, profile, license] = await Promise.all([
      orgLink(services, run.orgId),
      profileLink(services, run.profileId),
      licenseLink(services, run.licenseId)
    ])
    return [
      record([
        ["Status", run.status],
        ["Created", when(run.createdAt)],
        ["Organization", withReason(organization, "organization")],
        ["Profile", withReason(profile, "profile")],
        ["License", license],
        ["Workflow id", id(run.workflowId)]
      ])
    ]
  })
