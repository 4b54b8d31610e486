import { ApiError } from "./Api.js"
import { h } from "./Dom.js"

/** A failure as a person reads it: not found, the token wanted, or the server's message. */
export const failure = (error: unknown, what: string) => {
  const message = !(error instanceof ApiError)
    ? String(error)
    : error.status === 404
    ? `${what} not found`
    : error.status === 401
    ? "This server needs an API token: enter it at the top of the page."
    : error.message
  return h("p", { class: "error", role: "alert" }, message)
}
