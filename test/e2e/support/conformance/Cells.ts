import type { Cell } from "./Cell.js"
import { httpCells } from "./HttpCells.js"
import { protoCells } from "./ProtoCells.js"

/**
 * Every cell of the table, style by protocol: Connect JSON (also with GET reads) and binary, gRPC-Web, REST, GraphQL
 * and /rpc over HTTP/1.1 and cleartext HTTP/2, gRPC over HTTP/2 (two stacks). A style added here
 * is in every test that walks the cells.
 */
export const cells: ReadonlyArray<Cell> = [...protoCells, ...httpCells]
