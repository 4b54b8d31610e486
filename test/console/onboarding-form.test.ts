import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { formIn, formInputs } from "../../src/console/Fields.js"
import { optionalDescribed } from "../../src/domain/Described.js"
import { OnboardingProfile, OnboardingRequest } from "../../src/domain/Onboarding.js"
import { formFields, onboardingForm } from "../../src/transports/pages/OnboardingForm.js"

/**
 * The console's onboarding form is the workflow's request as its schema declares it (served in
 * `/console/config.json`, src/transports/pages/OnboardingForm.ts): each field of each part, its
 * label the first clause of the field's description. A field added to the request is in the form
 * with no console edit; here the request's profile has gained one.
 */
describe("the console's onboarding form", () => {
  it("asks for every field of the workflow's request, labelled from its description, in the form's order", () => {
    const inputs = formInputs(onboardingForm)
    // Today's fields (a field added to the request comes in its part's place, and needs no line here).
    const known = ["org.name", "profile.fullName", "license.start", "license.end", "workflowOptions.workflowId"]
    expect(inputs.filter((input) => known.includes(input.path)).map(({ label, path, required }) => ({ path, label, required }))).toEqual([
      { path: "org.name", label: "The org's display name", required: true },
      { path: "profile.fullName", label: "The person's full name", required: true },
      { path: "license.start", label: "When the license starts", required: true },
      { path: "license.end", label: "When the license ends", required: true },
      { path: "workflowOptions.workflowId", label: "The caller's idempotency key (a UUID)", required: false }
    ])
    // The rule in words, after the description's first clause, is the field's hint.
    expect(inputs.find((input) => input.path === "org.name")?.hint).toBe("1 to 200 characters, at least one of them visible")
  })

  it("a field added to the request's profile is in the form, with the words of its limit as its hint", () => {
    const WithNickname = Schema.Struct({
      ...OnboardingRequest.fields,
      profile: Schema.Struct({ ...OnboardingProfile.fields, nickname: optionalDescribed(Schema.String.pipe(Schema.maxLength(64)), "what the person likes to be called") })
    })
    // As the browser reads it from /console/config.json.
    const form = formIn(JSON.parse(JSON.stringify({ onboardingForm: formFields(WithNickname) })))!
    const nickname = formInputs(form).find((input) => input.path === "profile.nickname")
    expect(nickname).toMatchObject({ id: "profile-nickname", label: "What the person likes to be called", hint: "at most 64 characters", required: false })
    expect(formInputs(form).map((input) => input.path).indexOf("profile.nickname")).toBe(2)
  })
})
