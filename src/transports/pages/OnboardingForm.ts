import type { Schema } from "effect"
import { OnboardingRequest } from "../../domain/Onboarding.js"
import { fieldDescription, recordFields } from "../../domain/RecordFields.js"

/**
 * One input of a form, as a request schema declares it: the field's path in the request
 * (`profile.fullName`, as a refusal names it), its description, and whether the request needs it.
 */
export interface FormField {
  readonly path: string
  readonly description: string
  readonly required: boolean
}

/**
 * A form's inputs from a request whose fields are records (the workflow's `org`, `profile`,
 * `license`, `workflowOptions`): each field of each part, in the schema's order.
 */
export const formFields = (request: Schema.Schema.Any): ReadonlyArray<FormField> =>
  recordFields(request.ast).flatMap(({ ps: part, type }) =>
    recordFields(type).map(({ ps, type: fieldType }) => ({
      path: `${String(part.name)}.${String(ps.name)}`,
      description: fieldDescription(ps, fieldType) ?? String(ps.name),
      required: !part.isOptional && !ps.isOptional
    }))
  )

/**
 * The console's onboarding form, from the workflow's request (served in `/console/config.json`):
 * a field added to the request is in the form with no console edit.
 */
export const onboardingForm = formFields(OnboardingRequest)
