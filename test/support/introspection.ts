import { standardIntrospection } from "../../bench/StandardIntrospection.js"

export { standardIntrospection }

/** The standard query `copies` times in one operation, each copy under its own alias. */
export const aliasedIntrospection = (copies: number) => {
  const fragments = standardIntrospection.slice(standardIntrospection.indexOf("fragment FullType"))
  const selection = standardIntrospection
    .slice(standardIntrospection.indexOf("__schema"), standardIntrospection.indexOf("fragment FullType"))
    .trim()
    .replace(/\}\s*$/, "")
  return `query { ${Array.from({ length: copies }, (_, i) => `s${i}: ${selection}`).join(" ")} } ${fragments}`
}
