import { describe, expect, it } from "@effect/vitest"
import { answered, contentEdited, freshId, newWorkflowId, outcomeOf, toSend, typedId } from "../../src/console/WorkflowId.js"

/**
 * When the console's onboarding form keeps its workflow id and when it takes a new one
 * (src/console/WorkflowId.ts); test/e2e/console-once.test.ts clicks it in Chromium.
 */
describe("the onboarding form's workflow id", () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

  it("is a new version 4 UUID, also where crypto.randomUUID is missing (a page not on https or localhost)", () => {
    expect(newWorkflowId()).toMatch(uuid)
    try {
      Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true })
      const made = Array.from({ length: 50 }, newWorkflowId)
      for (const id of made) expect(id).toMatch(uuid)
      expect(new Set(made).size).toBe(50)
    } finally {
      Reflect.deleteProperty(crypto, "randomUUID")
    }
    expect(typeof crypto.randomUUID).toBe("function")
  })

  it("holds while the form is filled in, and is new after a success", () => {
    const form = freshId()
    expect(contentEdited(form)).toEqual(form)
    expect(answered(toSend(form), "created").workflowId).not.toBe(form.workflowId)
  })

  it("after a refusal, is new once the form is edited; after no answer, is kept through any edit and refusal", () => {
    const refused = answered(toSend(freshId()), outcomeOf(400))
    expect(answered(refused, "refused").workflowId).toBe(refused.workflowId)
    expect(contentEdited(refused).workflowId).not.toBe(refused.workflowId)

    const unanswered = answered(toSend(freshId()), outcomeOf(undefined))
    expect(contentEdited(unanswered)).toEqual(unanswered)
    for (const status of [500, 502, 503, 504]) expect(outcomeOf(status)).toBe("unknown")
    // The edited request is refused as already existing: the run it names is the unanswered one's.
    const thenRefused = answered(unanswered, outcomeOf(409))
    expect(contentEdited(thenRefused).workflowId).toBe(unanswered.workflowId)
  })

  it("typed by the person, is theirs: kept through edits after a refusal, and a cleared one is replaced when sent", () => {
    const typed = typedId(freshId(), "0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f")
    const refused = answered(toSend(typed), "refused")
    expect(contentEdited(refused).workflowId).toBe("0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f")
    expect(toSend(typedId(refused, "  ")).workflowId).toMatch(uuid)
    // Another id typed over one left unanswered leaves what was unknown about it.
    const unanswered = answered(toSend(freshId()), "unknown")
    expect(typedId(unanswered, "0b7e9d4c-5c1a-4f0e-9a53-1b2f3c4d5e6f").mayHaveRun).toBe(false)
    expect(typedId(unanswered, unanswered.workflowId).mayHaveRun).toBe(true)
  })
})
