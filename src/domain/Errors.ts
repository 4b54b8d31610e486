import { Schema } from "effect"

/** One broken rule, named by the path of the field in the request (`license.end`). */
export class FieldViolation extends Schema.Class<FieldViolation>("FieldViolation")({
  field: Schema.String,
  description: Schema.String
}) {}

export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  message: Schema.String,
  violations: Schema.Array(FieldViolation)
}) {
  static fromViolations(violations: ReadonlyArray<FieldViolation>): InvalidArgument {
    const message = violations.map((v) => (v.field === "" ? v.description : `${v.field}: ${v.description}`)).join("; ")
    return new InvalidArgument({ message, violations })
  }
  static field(field: string, description: string): InvalidArgument {
    return InvalidArgument.fromViolations([new FieldViolation({ field, description })])
  }
  /**
   * The same message, each violation's field named by `naming`: how a style names a field in its
   * details (as the request spelled it, or by its proto name), where the message keeps the domain's
   * names.
   */
  fieldsNamed(naming: (field: string) => string): InvalidArgument {
    return new InvalidArgument({
      message: this.message,
      violations: this.violations.map((v) => new FieldViolation({ field: naming(v.field), description: v.description }))
    })
  }
  /** The same violations, with field `from` called `to`: for a style that names a field its own way. */
  renamed(from: string, to: string): InvalidArgument {
    return InvalidArgument.fromViolations(
      this.violations.map((v) => (v.field === from ? new FieldViolation({ field: to, description: v.description }) : v))
    )
  }
}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message(): string {
    return `${this.resource} ${this.id} not found`
  }
}

export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message(): string {
    return `${this.resource} ${this.id} already exists with different content`
  }
}

/** The database could not be reached, or kept failing transiently after the retries. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  message: Schema.String
}) {}

export type DomainError = InvalidArgument | NotFound | AlreadyExists | Unavailable
