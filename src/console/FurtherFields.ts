/**
 * A record's fields that its page or list does not lay out itself: the ones a record gained after
 * the console was written. Shown as they come, labelled from their names, so a field added to a
 * record's declaration shows in the console without a console edit; a page lays a field out itself
 * (a link, a date) by naming it among those it shows.
 */
export const furtherFields = <R extends object>(
  record: R,
  shown: ReadonlyArray<keyof R & string>
): ReadonlyArray<readonly [label: string, value: string]> => {
  const laidOut = new Set<string>(shown)
  return Object.entries(record)
    .filter(([name, value]) => !laidOut.has(name) && present(value))
    .map(([name, value]) => [labelOf(name), text(value)] as const)
}

/** The further fields any of `records` holds, in the order they first appear: a list's extra columns. */
export const furtherColumns = <R extends object>(records: ReadonlyArray<R>, shown: ReadonlyArray<keyof R & string>) => {
  const laidOut = new Set<string>(shown)
  const names = new Set<string>()
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) if (!laidOut.has(name) && present(value)) names.add(name)
  }
  return [...names].map((name) => ({
    heading: labelOf(name),
    cell: (record: R) => {
      const value: unknown = Reflect.get(record, name)
      return present(value) ? text(value) : ""
    }
  }))
}

const present = (value: unknown) => value !== undefined && value !== null

const text = (value: unknown) => typeof value === "object" ? JSON.stringify(value) : String(value)

/** `nickname` → "Nickname", `startAt` → "Start at": the field's name as words. */
export const labelOf = (name: string) => {
  const isUpper = (character: string | undefined) => character !== undefined && character !== character.toLowerCase()
  const isLowerOrDigit = (character: string | undefined) =>
    character !== undefined && (character !== character.toUpperCase() || (character >= "0" && character <= "9"))
  const words = [...name]
    .map((character, at) => (character === "_" ? " " : isUpper(character) && isLowerOrDigit(name[at - 1]) ? ` ${character}` : character))
    .join("")
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}
