import { describe, expect, it } from "@effect/vitest"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { Effect, Metric, Scope } from "effect"
import { makeDatabaseGate } from "../../src/services/database/DatabaseGate.js"
import { poolConnections, poolWaiting, samplePool, workHeld } from "../../src/services/database/DatabasePool.js"

/*
 * The pool's gauges are read every second by repeating one reading. Built once with its figures
 * inside, that reading set the start-up figures again and again: /metrics said 0 held and 0
 * waiting with 64 calls in flight on 10 connections. Each reading here must see the figures of
 * its own moment.
 */

const gaugeValue = (gauge: Metric.Metric.Gauge<number>) => Effect.map(Metric.value(gauge), (state) => state.value)

describe("samplePool", () => {
  it.effect("reads the pool and the gate each time it runs, not once", () =>
    Effect.gen(function*() {
      const pool = { totalCount: 3, idleCount: 3, waitingCount: 0 }
      const gate = makeDatabaseGate({ connections: 2, maxWaiting: 5 })
      const sample = samplePool(pool, gate)

      yield* sample
      expect(yield* gaugeValue(Metric.tagged(poolConnections, "state", "in_use"))).toBe(0)
      expect(yield* gaugeValue(workHeld)).toBe(0)

      // Two units of work in, a third waiting at the gate; the pool lends two clients and has a caller queued.
      yield* gate.enter(1_000)
      yield* gate.enter(1_000)
      yield* Effect.fork(gate.enter(60_000))
      yield* Effect.yieldNow()
      Object.assign(pool, { idleCount: 1, waitingCount: 1 })

      yield* sample
      expect(yield* gaugeValue(Metric.tagged(poolConnections, "state", "in_use"))).toBe(2)
      expect(yield* gaugeValue(Metric.tagged(poolConnections, "state", "idle"))).toBe(1)
      expect(yield* gaugeValue(workHeld)).toBe(2)
      expect(yield* gaugeValue(poolWaiting)).toBe(2)
    }))

  it.effect("counts a kept connection no unit holds as idle, though the pool has lent it", () =>
    Effect.gen(function*() {
      const gate = makeDatabaseGate({ connections: 2, maxWaiting: 5, keeps: true })
      yield* gate.enter(1_000)
      gate.leave({ connection: {} as SqlConnection.Connection, scope: yield* Scope.make() })
      yield* samplePool({ totalCount: 1, idleCount: 0, waitingCount: 0 }, gate)
      expect(yield* gaugeValue(Metric.tagged(poolConnections, "state", "in_use"))).toBe(0)
      expect(yield* gaugeValue(Metric.tagged(poolConnections, "state", "idle"))).toBe(1)
    }))
})
