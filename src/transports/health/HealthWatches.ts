import { Context, Layer } from "effect"

/**
 * The gRPC health Watch streams open in this process, across all its ports, and their cap
 * (MAX_HEALTH_WATCHES). Health is open without the token (orchestrators probe without
 * credentials) and outside MAX_REQUESTS_IN_FLIGHT, and a Watch stream stays open for as long as
 * its client likes: without a cap per process, connections × streams per connection would be the
 * only bound (1,024 × 100 per port).
 */
export interface HealthWatchesShape {
  readonly max: number
  /** Streams open now. */
  readonly open: () => number
  /** Takes a place for one more stream: false at the cap. */
  readonly admit: () => boolean
  /** Gives back a place `admit` gave (once per place: the stream keeps track). */
  readonly leave: () => void
}

export class HealthWatches extends Context.Tag("HealthWatches")<HealthWatches, HealthWatchesShape>() {
  /** One count per process: provided once, above all its ports. */
  static readonly layer = (max: number) =>
    Layer.sync(HealthWatches, () => {
      let open = 0
      return {
        max,
        open: () => open,
        admit: () => open < max && ++open > 0,
        leave: () => {
          open = Math.max(0, open - 1)
        }
      }
    })
}
