/**
 * The console's addresses live in the URL's fragment, so a reload or the back button returns to
 * the same page: `#/<section>` (a list), `#/<section>/<id>` (a record), and the list's position
 * and filter as a query (`#/profiles?org=<id>&page=<token>&prev=<token>`).
 */
export interface Route {
  readonly section: string
  readonly id: string | undefined
  readonly query: URLSearchParams
}

/** A fragment typed or pasted by hand may hold a stray `%`: taken as it is rather than throwing. */
const decoded = (part: string): string => {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

export const currentRoute = (): Route => {
  const hash = location.hash.startsWith("#") ? location.hash.slice(1) : location.hash
  const fragment = hash.startsWith("/") ? hash.slice(1) : hash
  const mark = fragment.indexOf("?")
  const path = mark === -1 ? fragment : fragment.slice(0, mark)
  const [section = "", id] = path.split("/").map(decoded)
  return { section, id: id === "" ? undefined : id, query: new URLSearchParams(mark === -1 ? "" : fragment.slice(mark + 1)) }
}

type QueryValue = string | ReadonlyArray<string> | undefined

/** The address of a page: its section, its record's id if any, its query (values absent or "" left out). */
export const href = (section: string, query: Record<string, QueryValue> = {}, id?: string): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    for (const each of typeof value === "string" ? [value] : value ?? []) if (each !== "") search.append(name, each)
  }
  const text = search.toString()
  return `#/${section}${id === undefined ? "" : `/${encodeURIComponent(id)}`}${text === "" ? "" : `?${text}`}`
}

export const recordHref = (section: string, id: string) => href(section, {}, id)

/**
 * Where a list is: the page token of this page (none for the first) and those of the pages
 * before it after the first, oldest first; a page token only leads forwards, so the way back is
 * kept with it.
 */
export interface Position {
  readonly page: string | undefined
  readonly prev: ReadonlyArray<string>
}

export const positionOf = (query: URLSearchParams): Position => ({
  page: query.get("page") || undefined,
  prev: query.getAll("prev").filter((token) => token !== "")
})

export const pageNumber = (position: Position) => (position.page === undefined ? 1 : position.prev.length + 2)

export const nextPosition = (position: Position, next: string): Position => ({
  page: next,
  prev: position.page === undefined ? [] : [...position.prev, position.page]
})

export const previousPosition = (position: Position): Position | undefined =>
  position.page === undefined ? undefined : { page: position.prev.at(-1), prev: position.prev.slice(0, -1) }
