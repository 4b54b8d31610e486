/**
 * The onboarding form's workflow id, and when it is kept or replaced. The service runs a request
 * once per workflow id (the same request again answers with the first run; the same id with
 * another request is refused as already existing), so the form always sends one: a click repeated
 * after a failure or a lost answer cannot onboard the customer twice.
 *
 * - A new form holds a new id; after a success the form starts afresh with another.
 * - After an answer that never came (the connection failed, a proxy's 502/504, the service's 503):
 *   the id is kept until a success, whatever is edited. The run may exist; only this id finds it —
 *   the same request answers with it, an edited one is refused as already existing, which links
 *   it. A new id would onboard the customer a second time.
 * - After a definite refusal (any 4xx: invalid, no token, already exists), that request is over
 *   and made nothing; an edit makes another request, which gets an id of its own, as after a
 *   success. Unless a send under the id may have run (above): then the id is kept.
 * - An id the person typed is theirs: never replaced, and what was unknown about the one before
 *   it is theirs to leave. One cleared is replaced by a new one when the form is sent.
 */
export interface FormId {
  readonly workflowId: string
  /** Typed by the person rather than made here. */
  readonly typed: boolean
  /** A send under this id went unanswered: a run may exist under it. */
  readonly mayHaveRun: boolean
  /** The last send under this id was refused: it made nothing. */
  readonly refused: boolean
}

/** What a send's answer says about the run: made, certainly not made, or not known. */
export type Outcome = "created" | "refused" | "unknown"

/** A 4xx is the service's (or a proxy's) refusal before running; anything else may have run. */
export const outcomeOf = (status: number | undefined): Outcome =>
  status !== undefined && status >= 400 && status < 500 ? "refused" : "unknown"

/** A random (version 4) UUID; `crypto.randomUUID` is there only on https or localhost. */
export const newWorkflowId = (): string => {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export const freshId = (): FormId => ({ workflowId: newWorkflowId(), typed: false, mayHaveRun: false, refused: false })

/** The person typed in the id field. */
export const typedId = (current: FormId, text: string): FormId => ({
  workflowId: text,
  typed: true,
  mayHaveRun: current.mayHaveRun && text.trim() === current.workflowId,
  refused: false
})

/** The person changed what the form asks for (a name, a date). */
export const contentEdited = (current: FormId): FormId =>
  current.refused && !current.typed && !current.mayHaveRun ? freshId() : current

/** The id a send carries: the field's, or a new one when the person cleared it. */
export const toSend = (current: FormId): FormId => {
  const workflowId = current.workflowId.trim()
  return workflowId === "" ? freshId() : { ...current, workflowId }
}

export const answered = (sent: FormId, outcome: Outcome): FormId =>
  outcome === "created"
    ? freshId()
    : outcome === "refused"
    ? { ...sent, refused: true }
    : { ...sent, mayHaveRun: true, refused: false }
