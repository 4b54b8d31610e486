import { ApiError, Unreachable } from "./Api.js"
import { h } from "./Dom.js"
import { refusedInWords } from "./Violations.js"

/**
 * Without an answer the browser says nothing of why (a refused connection and a CORS refusal look
 * the same to a script), so the message names both settings that decide it.
 */
const unreachable = (error: Unreachable): string =>
  error.service === "workflow"
    ? `Could not reach the workflow service at ${error.origin}, which serves this page: is it still running?`
    : `Could not reach the ${error.service} service at ${error.origin}. Check that CORS_ORIGINS on the ${error.service} service ` +
      `includes this page's origin (${location.origin}), that the ${error.service} service is running, and that ` +
      `${error.service.toUpperCase()}_SERVICE_URL on the workflow service is the address browsers reach it at.`

/** A failure as a person reads it: not found, the token wanted or wrong, the port unreachable, or the server's message. */
export const failureText = (error: unknown, what: string): string =>
  error instanceof Unreachable
    ? unreachable(error)
    : !(error instanceof ApiError)
    ? String(error)
    : error.status === 404
    ? `${what.charAt(0).toUpperCase()}${what.slice(1)} not found.`
    : error.status === 401
    ? error.tokenSent
      ? "The API token entered is not the one this server accepts: check it, and enter it again at the top of the page."
      : "This server needs an API token: enter it at the top of the page."
    : error.status === 400
    ? refusedInWords(error.details, error.message)
    : error.message

export const failure = (error: unknown, what: string) => h("p", { class: "error", role: "alert" }, failureText(error, what))
