/**
 * SCHEMA_ACCESS_RATE and SCHEMA_ACCESS_RATE_PER_ADDRESS: how many calls without the token
 * (SCHEMA_ACCESS=open) one port lets through each second, in all and from one peer address.
 */
export interface TokenlessRates {
  readonly perSecond: number
  readonly perAddressPerSecond: number
}

/**
 * Addresses whose allowance is remembered at once; past it the one remembered longest is
 * forgotten, which only gives that address a fresh burst: the port's own allowance still bounds
 * every address together, so many addresses cannot hold memory without bound.
 */
const maxAddresses = 4_096

/** A token bucket: `rate` a second, a burst of one second's worth, full to start with. */
class Bucket {
  private tokens: number
  private at: number

  constructor(private readonly rate: number, now: number) {
    this.tokens = rate
    this.at = now
  }

  private refill(now: number) {
    this.tokens = Math.min(this.rate, this.tokens + (now - this.at) * this.rate / 1_000)
    this.at = now
  }

  has(now: number): boolean {
    this.refill(now)
    return this.tokens >= 1
  }

  take() {
    this.tokens -= 1
  }

  /** Milliseconds until one token is there again. */
  waitMillis(): number {
    return Math.max(0, (1 - this.tokens) * 1_000 / this.rate)
  }
}

/**
 * The allowance of one port: `admit(address)` takes a call from the port's bucket and the
 * address's, and answers undefined, or, when either is empty, the seconds to wait before trying
 * again (a whole number, at least 1, as Retry-After takes it) and takes nothing. A bucket rather
 * than a count per second: a caller cannot send a second's worth at the end of one second and again
 * at the start of the next. `now` is the clock in milliseconds (a test can give its own).
 */
export const tokenlessRate = (rates: TokenlessRates, now: () => number = () => performance.now()) => {
  const port = new Bucket(rates.perSecond, now())
  const addresses = new Map<string, Bucket>()
  const addressBucket = (address: string, at: number) => {
    const known = addresses.get(address)
    if (known !== undefined) return known
    if (addresses.size >= maxAddresses) addresses.delete(addresses.keys().next().value!)
    const bucket = new Bucket(rates.perAddressPerSecond, at)
    addresses.set(address, bucket)
    return bucket
  }
  return (address: string): number | undefined => {
    const at = now()
    const own = addressBucket(address, at)
    const ownHas = own.has(at)
    const portHas = port.has(at)
    if (ownHas && portHas) {
      own.take()
      port.take()
      return undefined
    }
    const wait = Math.max(ownHas ? 0 : own.waitMillis(), portHas ? 0 : port.waitMillis())
    return Math.max(1, Math.ceil(wait / 1_000))
  }
}
