import { ApiError, type Services } from "./Api.js"
import { type Child, type Column, field, h, link, table } from "./Dom.js"
import { failure } from "./Failure.js"
import { violationsIn } from "./Violations.js"
import { currentRoute, href, nextPosition, pageNumber, type Position, positionOf, previousPosition, recordHref } from "./Route.js"

/** Rows per page: a phone's screen of stacked rows, a laptop's without scrolling far. */
export const pageSize = 10

export interface ListPage<A> {
  readonly section: string
  readonly heading: string
  /** The records' name in a sentence ("organizations"), and one of them ("organization"). */
  readonly plural: string
  readonly singular: string
  /** What the list may be narrowed to: its query parameter in the console's address, and its control. */
  readonly filter?: {
    readonly param: string
    readonly label: string
    readonly hint?: string
    /** A choice of values (`value`, text); absent, typed text (an id). */
    readonly choices?: ReadonlyArray<readonly [string, string]>
    /** The sentence over a narrowed list ("Only the profiles of Acme"). */
    readonly describe: (services: Services, value: string) => Promise<Child>
  }
  readonly load: (
    services: Services,
    query: { readonly pageToken: string | undefined; readonly filter: string | undefined }
  ) => Promise<{ readonly rows: ReadonlyArray<A>; readonly next: string }>
  /** The columns of these rows, with whatever they name read first; `failed`: why a name is missing. */
  readonly columns: (services: Services, rows: ReadonlyArray<A>) => Promise<{ readonly columns: ReadonlyArray<Column<A>>; readonly failed?: unknown }>
}

/** The way to the previous and the next page, each an address (so the back button retraces it). */
const paging = (section: string, query: Record<string, string | undefined>, position: Position, next: string) => {
  const previous = previousPosition(position)
  const at = (to: Position) => href(section, { ...query, page: to.page, prev: to.prev })
  return h(
    "nav",
    { class: "paging", "aria-label": "Pages" },
    previous === undefined
      ? h("span", { class: "paging-edge", "aria-disabled": "true" }, "← Previous page")
      : h("a", { href: at(previous), rel: "prev" }, "← Previous page"),
    h("span", { class: "paging-at" }, `Page ${pageNumber(position)}`),
    next === ""
      ? h("span", { class: "paging-edge", "aria-disabled": "true" }, "Next page →")
      : h("a", { href: at(nextPosition(position, next)), rel: "next" }, "Next page →")
  )
}

const filterForm = (section: string, filter: NonNullable<ListPage<unknown>["filter"]>, value: string | undefined) => {
  const id = `${section}-filter`
  const control = filter.choices === undefined
    ? field(id, filter.label, { value: value ?? "", autocomplete: "off", spellcheck: "false" }, filter.hint)
    : (() => {
      const select = h(
        "select",
        { id, name: id },
        ...filter.choices.map(([choice, text]) => h("option", { value: choice, selected: choice === (value ?? "") }, text))
      )
      return { element: h("div", { class: "field" }, h("label", { for: id }, filter.label), select), input: select }
    })()
  const form = h("form", { class: "inline" }, control.element, h("button", { type: "submit" }, "Show"))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    location.hash = href(section, { [filter.param]: control.input.value.trim() })
  })
  return form
}

/** Opens one record by its id: for an id from elsewhere (a ticket, a log line). */
const openById = <A>(page: ListPage<A>) => {
  const idField = field(`${page.section}-id`, `${page.singular.charAt(0).toUpperCase()}${page.singular.slice(1)} id`, {
    required: true,
    autocomplete: "off",
    spellcheck: "false"
  })
  const form = h("form", { class: "inline" }, idField.element, h("button", { type: "submit" }, "Open"))
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const wanted = idField.input.value.trim()
    if (wanted !== "") location.hash = recordHref(page.section, wanted)
  })
  return h("section", { "aria-label": `Open ${page.singular} by id` }, h("h2", {}, "Open one by its id"), form)
}

/** An address typed or pasted by hand whose filter or page the service cannot read, in a sentence, and the way to the whole list. */
const unreadable = <A>(page: ListPage<A>, error: ApiError) => {
  const rule = violationsIn(error.details)[0]?.description
  return h(
    "p",
    { class: "error", role: "alert" },
    `This address holds a filter or page the service cannot read${rule === undefined ? "" : `: the value ${rule}`}. `,
    link(href(page.section), `Show all ${page.plural}`),
    "."
  )
}

/** A list page: its filter, a page of rows newest first, the way to the pages around it, and an id to open. */
export const listPage = <A>(page: ListPage<A>, services: Services) => {
  const { query } = currentRoute()
  const position = positionOf(query)
  const filterValue = page.filter === undefined ? undefined : query.get(page.filter.param) || undefined
  const kept = page.filter === undefined ? {} : { [page.filter.param]: filterValue }
  const shown = h("div", { class: "list", "aria-live": "polite" }, h("p", {}, "Loading…"))
  const narrowed = h("div", {})
  /** The service could not read the address: its filter is said to be wrong, not described. */
  let unread = false
  if (page.filter !== undefined && filterValue !== undefined) {
    const filter = page.filter
    void filter.describe(services, filterValue).then((sentence) => {
      if (!unread) narrowed.replaceChildren(h("p", { class: "narrowed" }, sentence, " ", link(href(page.section), `Show all ${page.plural}`)))
    })
  }
  const draw = async () => {
    try {
      const { rows, next } = await page.load(services, { pageToken: position.page, filter: filterValue })
      if (rows.length === 0) {
        shown.replaceChildren(h("p", {}, position.page === undefined ? `No ${page.plural} yet.` : `No more ${page.plural}.`))
        if (position.page !== undefined) shown.append(paging(page.section, kept, position, ""))
        return
      }
      const { columns, failed } = await page.columns(services, rows)
      const first = (pageNumber(position) - 1) * pageSize + 1
      shown.replaceChildren(
        ...(failed === undefined ? [] : [failure(failed, "name")]),
        table(`${page.heading} ${first}–${first + rows.length - 1}, newest first`, columns, rows),
        paging(page.section, kept, position, next)
      )
    } catch (error) {
      unread = error instanceof ApiError && error.status === 400
      if (unread) narrowed.replaceChildren()
      shown.replaceChildren(unread && error instanceof ApiError ? unreadable(page, error) : failure(error, page.plural))
    }
  }
  void draw()
  return h(
    "div",
    {},
    h("section", {}, h("h1", { tabindex: "-1" }, page.heading), page.filter !== undefined && filterForm(page.section, page.filter, filterValue), narrowed, shown),
    openById(page)
  )
}
