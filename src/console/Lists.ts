import { rest, type ServiceName, type Services } from "./Api.js"
import { period, when } from "./Dates.js"
import { type Column, h, link } from "./Dom.js"
import { type ListPage, pageSize } from "./ListPage.js"
import { furtherColumns } from "./FurtherFields.js"
import { type NamedLink, orgLink, profileLink, withReason } from "./Names.js"
import type { License, Org, Profile, Run } from "./Resources.js"
import { href, recordHref } from "./Route.js"

/** The four lists of the menu, each over its service's List operation (REST `GET /<plural>`). */

const listed = async <A, Items extends string>(
  services: Services,
  service: ServiceName,
  path: string,
  items: Items,
  pageToken: string | undefined,
  filter?: readonly [string, string | undefined]
) => {
  const query = new URLSearchParams({ pageSize: String(pageSize) })
  if (pageToken !== undefined) query.set("pageToken", pageToken)
  if (filter?.[1] !== undefined) query.set(filter[0], filter[1])
  // REST's List reply: the page's records under the list's own name, and the next page's token.
  type Reply = { readonly [name in Items]?: ReadonlyArray<A> } & { readonly nextPageToken?: string }
  const answer = await rest<Reply>(services, service, `${path}?${query}`)
  const rows: ReadonlyArray<A> = answer[items] ?? []
  return { rows, next: answer.nextPageToken ?? "" }
}

/** The named links of a page's ids, read at once; the first failure says why the others may be ids. */
const linksOf = async (ids: ReadonlyArray<string>, read: (id: string) => Promise<NamedLink>) => {
  const unique = [...new Set(ids)]
  const named = await Promise.all(unique.map(async (each) => [each, await read(each)] as const))
  const links = new Map(named)
  // One element per cell: a name shared by rows is the same link drawn again (an id not read is its text).
  return {
    at: (each: string) => links.get(each)?.link.cloneNode(true) ?? document.createTextNode(each),
    failed: named.find(([, each]) => each.failed !== undefined)?.[1].failed
  }
}

export const orgList: ListPage<Org> = {
  section: "orgs",
  heading: "Organizations",
  plural: "organizations",
  singular: "organization",
  load: (services, { pageToken }) => listed(services, "org", "/orgs", "orgs", pageToken),
  columns: async (_, orgs) => ({
    columns: [
      { heading: "Name", cell: (org) => link(recordHref("orgs", org.id), org.name) },
      ...furtherColumns(orgs, ["name", "id"]),
      { heading: "Profiles", cell: (org) => link(href("profiles", { org: org.id }), "Show profiles") }
    ]
  })
}

export const profileList: ListPage<Profile> = {
  section: "profiles",
  heading: "Profiles",
  plural: "profiles",
  singular: "profile",
  filter: {
    param: "org",
    label: "Organization id",
    hint: "Only the profiles of this organization (its UUID); empty for all.",
    describe: async (services, orgId) => h("span", {}, "Only the profiles of ", withReason(await orgLink(services, orgId), "organization"), ".")
  },
  load: (services, { filter, pageToken }) => listed(services, "profile", "/profiles", "profiles", pageToken, ["orgId", filter]),
  columns: async (services, profiles) => {
    const orgs = await linksOf(profiles.map((profile) => profile.orgId), (orgId) => orgLink(services, orgId))
    const columns: ReadonlyArray<Column<Profile>> = [
      { heading: "Full name", cell: (profile) => link(recordHref("profiles", profile.id), profile.fullName) },
      { heading: "Organization", cell: (profile) => orgs.at(profile.orgId) },
      ...furtherColumns(profiles, ["fullName", "orgId", "id"]),
      { heading: "Licenses", cell: (profile) => link(href("licenses", { user: profile.id }), "Show licenses") }
    ]
    return { columns, failed: orgs.failed }
  }
}

export const licenseList: ListPage<License> = {
  section: "licenses",
  heading: "Licenses",
  plural: "licenses",
  singular: "license",
  filter: {
    param: "user",
    label: "Holder's profile id",
    hint: "Only the licenses of this person (their profile's UUID); empty for all.",
    describe: async (services, userId) => h("span", {}, "Only the licenses of ", withReason(await profileLink(services, userId), "profile"), ".")
  },
  load: (services, { filter, pageToken }) => listed(services, "license", "/licenses", "licenses", pageToken, ["userId", filter]),
  columns: async (services, licenses) => {
    const holders = await linksOf(licenses.map((license) => license.userId), (userId) => profileLink(services, userId))
    const columns: ReadonlyArray<Column<License>> = [
      { heading: "Period", cell: (license) => link(recordHref("licenses", license.id), period(license.start, license.end)) },
      { heading: "Holder", cell: (license) => holders.at(license.userId) },
      ...furtherColumns(licenses, ["start", "end", "userId", "id"])
    ]
    return { columns, failed: holders.failed }
  }
}

export const runList: ListPage<Run> = {
  section: "workflows",
  heading: "Workflow runs",
  plural: "workflow runs",
  singular: "workflow run",
  filter: {
    param: "status",
    label: "Status",
    choices: [["", "Any status"], ["completed", "Completed"]],
    describe: async (_, status) => `Only the runs with status ${status}.`
  },
  load: (services, { filter, pageToken }) => listed(services, "workflow", "/workflow/workflows/onboarding", "workflows", pageToken, ["status", filter]),
  columns: async (services, runs) => runColumns(services, runs)
}

/** The runs' columns, also under the onboarding form's recent runs. */
export const runColumns = async (services: Services, runs: ReadonlyArray<Run>) => {
  const orgs = await linksOf(runs.map((run) => run.orgId), (orgId) => orgLink(services, orgId))
  const columns: ReadonlyArray<Column<Run>> = [
    { heading: "Created", cell: (run) => link(recordHref("workflows", run.workflowId), when(run.createdAt)) },
    { heading: "Organization", cell: (run) => orgs.at(run.orgId) },
    { heading: "Status", cell: (run) => run.status }
  ]
  return { columns, failed: orgs.failed }
}
