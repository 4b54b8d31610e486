/** Elements built from values, never from HTML text: what a record holds is shown, not run. */
type Child = Node | string | undefined | false
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

/** A labelled input with the place for its field's message under it. */
export const field = (id: string, label: string, attributes: Attributes = {}) => {
  const input = h("input", { id, name: id, "aria-describedby": `${id}-message`, ...attributes })
  const message = h("p", { id: `${id}-message`, class: "field-message", "aria-live": "polite" })
  return { element: h("div", { class: "field" }, h("label", { for: id }, label), input, message), input, message }
}

/** A record as a definition list; ids that are other records become links to them. */
export const record = (rows: ReadonlyArray<readonly [string, string | Node]>) =>
  h("dl", { class: "record" }, ...rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]))

export const link = (href: string, text: string) => h("a", { href }, text)
