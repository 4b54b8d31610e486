import { Context, Effect, Layer } from "effect"
import { Services } from "../../../support/Services.js"
import { catalog } from "./Catalog.js"
import type { ServiceUrls } from "../StyleClient.js"
import { type Cell, type CellClient, cellName } from "./Cell.js"
import { cells } from "./Cells.js"
import { makeSeed, samples, type Seed } from "./Samples.js"

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

/**
 * Each cell's call of every operation's first success case against `urls` (a deployment other
 * than the table's, behind a balancer), over a seed made there: what each answered, beside what
 * it should have.
 */
export const firstSuccesses = async (urls: ServiceUrls) => {
  const clients = cells.map((cell) => ({ cell, client: cell.make(urls) }))
  try {
    const seed = await makeSeed((tag, payload) => clients[0]!.client.call(operationOf(tag), payload))
    const rows = []
    for (const { cell, client } of clients) {
      for (const operation of catalog) {
        const success = (samples[operation.tag]?.(seed) ?? []).find((each) => "reply" in each.expected)
        if (success === undefined) throw new Error(`no success sample for ${operation.tag}`)
        const answer = await client.call(operation, success.payload)
        rows.push({ cell: cellName(cell), tag: operation.tag, answer, expected: (success.expected as { reply: unknown }).reply })
      }
    }
    return rows
  } finally {
    clients.forEach(({ client }) => client.close())
  }
}
