import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { isTransient, sqlState } from "../../src/services/database/Transient.js"

/** A database error as @effect/sql-pg wraps what node-postgres threw. */
const failure = (cause: { code?: string; message: string }) =>
  new SqlError({ cause: Object.assign(new Error(cause.message), cause.code === undefined ? {} : { code: cause.code }), message: "failed" })

describe("what a failover puts in front of a unit of work, classified", () => {
  // Each is what the Patroni failover test met, or what PostgreSQL documents for the same event.
  const transient = [
    { code: "57P01", message: "terminating connection due to administrator command", event: "the primary stopped for a switchover" },
    { code: "57P02", message: "terminating connection due to crash of another server process", event: "a backend crashed" },
    { code: "57P03", message: "the database system is shutting down", event: "the old primary going down" },
    { code: "25006", message: "cannot execute INSERT in a read-only transaction", event: "a primary demoted under the connection" },
    { code: "08006", message: "connection failure", event: "the connection failed" },
    { code: "08001", message: "could not connect", event: "no server to connect to" },
    { code: "ECONNRESET", message: "read ECONNRESET", event: "haproxy cut the session (shutdown-sessions)" },
    { code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:5432", event: "nothing listening" },
    { message: "Connection terminated unexpectedly", event: "the connection dropped mid-statement or mid-COMMIT" },
    { message: "timeout exceeded when trying to connect", event: "no connection within the connect timeout" }
  ]
  it.each(transient)("$event ($code $message): transient, retried", (cause) => {
    expect(isTransient(failure(cause))).toBe(true)
  })

  it.each([
    { code: "23505", message: "duplicate key value violates unique constraint" },
    { code: "42P01", message: "relation does not exist" },
    { code: "22P02", message: "invalid input syntax for type uuid" }
  ])("$code ($message): not transient, a defect", (cause) => {
    expect(isTransient(failure(cause))).toBe(false)
  })

  it("the metric's label: the SQLSTATE or Node code, else what node-postgres's message says", () => {
    expect(sqlState(failure({ code: "57P01", message: "terminating connection" }))).toBe("57P01")
    expect(sqlState(failure({ code: "ECONNRESET", message: "read ECONNRESET" }))).toBe("ECONNRESET")
    expect(sqlState(failure({ message: "Connection terminated unexpectedly" }))).toBe("connection_lost")
    expect(sqlState(failure({ message: "timeout exceeded when trying to connect" }))).toBe("connect_timeout")
    expect(sqlState(failure({ message: "something else" }))).toBe("unknown")
  })

  // What Node's net.connect throws when every address of a host (`localhost`: ::1 and 127.0.0.1)
  // refused: an AggregateError with no code of its own, each address's error inside it.
  const everyAddress = (codes: ReadonlyArray<string>) =>
    new SqlError({
      cause: new AggregateError(codes.map((code) => Object.assign(new Error(`connect ${code}`), { code })), ""),
      message: "failed"
    })

  it("every address of a host refused: transient when one of them failed as a connection does", () => {
    expect(isTransient(everyAddress(["ECONNREFUSED", "ECONNREFUSED"]))).toBe(true)
    expect(isTransient(everyAddress(["EACCES", "EHOSTUNREACH"]))).toBe(true)
    expect(isTransient(everyAddress(["EACCES", "EADDRNOTAVAIL"]))).toBe(false)
  })
})
