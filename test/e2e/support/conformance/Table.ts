import { Context, Effect, Layer } from "effect"
import { Services } from "../../../support/Services.js"
import { catalog } from "./Catalog.js"
import type { Cell, CellClient } from "./Cell.js"
import { cells } from "./Cells.js"
import { makeSeed, type Seed } from "./Samples.js"

/** The table's shared state: one client per cell, open for the whole table, and the seed records. */
export class Table extends Context.Tag("e2e/conformance/Table")<Table, {
  readonly seed: Seed
  readonly clientOf: (cell: Cell) => CellClient
}>() {}

/** Finds an operation of the catalog by tag (the seed's calls). */
const operationOf = (tag: string) => {
  const found = catalog.find((operation) => operation.tag === tag)
  if (found === undefined) throw new Error(`no operation ${tag} in the tables`)
  return found
}

export const TableLive = Layer.scoped(
  Table,
  Effect.gen(function*() {
    const urls = yield* Services
    const clients = yield* Effect.acquireRelease(
      Effect.sync(() => new Map(cells.map((cell) => [cell, cell.make(urls)] as const))),
      (made) => Effect.sync(() => made.forEach((client) => client.close()))
    )
    const clientOf = (cell: Cell) => clients.get(cell)!
    const first = clientOf(cells[0]!)
    const seed = yield* Effect.promise(() => makeSeed((tag, payload) => first.call(operationOf(tag), payload)))
    return { seed, clientOf }
  })
)
