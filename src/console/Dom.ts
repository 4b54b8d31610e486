/** Elements built from values, never from HTML text: what a record holds is shown, not run. */
export type Child = Node | string | undefined | false
type Attributes = Record<string, string | boolean | ((event: Event) => void) | undefined>

export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Array<Child>) => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value)
    else if (value === true) element.setAttribute(name, "")
    else element.setAttribute(name, value)
  }
  for (const child of children) {
    if (child !== undefined && child !== false) element.append(child)
  }
  return element
}

/** A labelled input, its hint if it has one, and the place for its field's message under it. */
export const field = (id: string, label: string, attributes: Attributes = {}, hint?: string) => {
  const described = [hint === undefined ? undefined : `${id}-hint`, `${id}-message`].filter(Boolean).join(" ")
  const input = h("input", { id, name: id, "aria-describedby": described, ...attributes })
  const message = h("p", { id: `${id}-message`, class: "field-message", "aria-live": "polite" })
  return {
    element: h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      hint !== undefined && h("p", { id: `${id}-hint`, class: "hint" }, hint),
      input,
      message
    ),
    input,
    message
  }
}

/** A record as a definition list. */
export const record = (rows: ReadonlyArray<readonly [string, Child]>) =>
  h("dl", { class: "record" }, ...rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]))

export const link = (href: string, text: Child) => h("a", { href }, text)

/** An id as text: small and fixed-width, so that a UUID fits a phone's width on one line. */
export const id = (text: string) => h("code", { class: "id" }, text)

export interface Column<A> {
  readonly heading: string
  readonly cell: (row: A) => Child
}

/**
 * Rows as a table; on a narrow screen each row stacks into a card, its cells labelled by their
 * column's heading (`data-label`), so that no cell is narrower than its words.
 */
export const table = <A>(caption: string, columns: ReadonlyArray<Column<A>>, rows: ReadonlyArray<A>) =>
  h(
    "table",
    { class: "rows" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...columns.map((column) => h("th", { scope: "col" }, column.heading)))),
    h(
      "tbody",
      {},
      ...rows.map((row) => h("tr", {}, ...columns.map((column) => h("td", { "data-label": column.heading }, column.cell(row)))))
    )
  )
