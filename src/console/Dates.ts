import { h } from "./Dom.js"

/** In the browser's own language and time zone; the exact UTC value stays on hover and in `datetime`. */
const local = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

/** A time as the API writes it (RFC 3339 in UTC), shown as a person reads it. */
export const when = (utc: string) => {
  const date = new Date(utc)
  return h("time", { datetime: utc, title: utc }, Number.isNaN(date.getTime()) ? utc : local.format(date))
}

/** A period, "from – to", each end its own `<time>`. */
export const period = (start: string, end: string) => h("span", { class: "period" }, when(start), " – ", when(end))
