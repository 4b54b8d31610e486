import { Effect } from "effect"
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort } from "../e2e/support/Processes.js"

/** The system binaries the HA topology needs (Debian: patroni, etcd-server, postgresql-15). */
export interface HaTools {
  readonly patroni: string
  readonly patronictl: string
  readonly etcd: string
  /** PostgreSQL's server binaries (initdb, postgres, pg_rewind, ...). */
  readonly postgresBin: string
}

export interface Member {
  /** Patroni's name for it: `pg0`, `pg1`, ... */
  readonly name: string
  readonly port: number
  /** Patroni's REST API: `/primary` answers 200 on the leader only. */
  readonly apiPort: number
  readonly dataDir: string
  readonly config: string
  /** Its Patroni process, while running. */
  patroni: ChildProcess | undefined
}

export interface MemberState {
  readonly name: string
  /** Patroni's role: `leader`, `sync_standby`, `replica`. */
  readonly role: string
  /** `running`, `streaming`, `stopped`, `starting`, ... */
  readonly state: string
  readonly timeline?: number
}

/**
 * Timers, shorter than Patroni's defaults (ttl 30, loop_wait 10, retry_timeout 10) so that the
 * faults of a test run take seconds; docs/deployment.md gives the production values. Patroni
 * requires loop_wait + 2 × retry_timeout ≤ ttl.
 */
export const patroniTimers = { ttl: 20, loopWait: 2, retryTimeout: 9 }

/**
 * One member's Patroni configuration, as docs/deployment.md shows it. What matters here:
 * - `synchronous_mode` with `synchronous_mode_strict`: a COMMIT is acknowledged only once a
 *   standby has it, and with no standby left writes wait rather than go on one copy; Patroni then
 *   promotes only the synchronous standby, so a failover never loses an acknowledged write.
 * - `primary_start_timeout: 0`: a crashed primary is failed over at once rather than restarted in
 *   place (safe only with synchronous replication: the standby has every acknowledged commit).
 * - `use_pg_rewind`: an old primary rejoins as a standby by rewinding what it wrote after the
 *   fork (nothing acknowledged: that was synchronous), instead of being re-cloned.
 * Trust authentication on loopback: a test fixture.
 */
export const patroniConfiguration = (
  member: Pick<Member, "name" | "port" | "apiPort" | "dataDir">,
  etcdPort: number,
  socketDir: string,
  postgresBin: string
) =>
  `scope: onboarding
namespace: /service/
name: ${member.name}
restapi:
  listen: 127.0.0.1:${member.apiPort}
  connect_address: 127.0.0.1:${member.apiPort}
etcd3:
  hosts: 127.0.0.1:${etcdPort}
bootstrap:
  dcs:
    ttl: ${patroniTimers.ttl}
    loop_wait: ${patroniTimers.loopWait}
    retry_timeout: ${patroniTimers.retryTimeout}
    maximum_lag_on_failover: 1048576
    primary_start_timeout: 0
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_log_hints: "on"
        max_connections: 100
  initdb:
  - encoding: UTF8
  pg_hba:
  - local all all trust
  - host replication all 127.0.0.1/32 trust
  - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${member.port}
  connect_address: 127.0.0.1:${member.port}
  data_dir: ${member.dataDir}
  bin_dir: ${postgresBin}
  pgpass: ${member.dataDir}.pgpass
  authentication:
    replication:
      username: postgres
    superuser:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: '${socketDir}'
`

/** PostgreSQL (and so Patroni, which runs it) refuses to run as root: as root, run them as `postgres`. */
const unprivileged = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim())
  return { uid: id("-u"), gid: id("-g") }
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** Until `check` answers true; fails with `what` (and the logs) after `within` ms. */
export const until = async (what: string, check: () => Promise<boolean>, within: number, logs: () => string = () => "") => {
  const deadline = Date.now() + within
  for (;;) {
    if (await check().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`${what}: not within ${within} ms\n${logs()}`)
    await sleep(200)
  }
}

/**
 * An etcd member and `members` PostgreSQL nodes under Patroni, on free loopback ports, in a
 * temporary directory: bootstrapped, and answered once there is a leader and every other member
 * streams from it, one of them as its synchronous standby. Everything stops, and the directory
 * goes, when the scope closes.
 */
export const patroniCluster = (tools: HaTools, members = 3) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const owner = unprivileged()
      const directory = mkdtempSync(join(tmpdir(), "onboarding-patroni-"))
      const own = (path: string) => owner === undefined ? undefined : chownSync(path, owner.uid, owner.gid)
      own(directory)
      const spawnAs = (binary: string, args: ReadonlyArray<string>, log: string) => {
        const child = spawn(binary, args, {
          ...owner,
          cwd: directory,
          env: { ...process.env, HOME: directory },
          stdio: ["ignore", "pipe", "pipe"]
        })
        const logPath = join(directory, log)
        child.stdout!.on("data", (chunk) => writeFileSync(logPath, chunk, { flag: "a" }))
        child.stderr!.on("data", (chunk) => writeFileSync(logPath, chunk, { flag: "a" }))
        return child
      }

      const [etcdPort, etcdPeerPort] = [await freePort(), await freePort()]
      const etcdDir = join(directory, "etcd")
      let etcd: ChildProcess | undefined
      const startEtcd = () => {
        etcd = spawnAs(tools.etcd, [
          "--name=e0",
          `--data-dir=${etcdDir}`,
          `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
          `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
          `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
          `--initial-cluster=e0=http://127.0.0.1:${etcdPeerPort}`
        ], "etcd.log")
      }
      const exited = (child: ChildProcess | undefined) =>
        child === undefined || child.exitCode !== null || child.signalCode !== null
          ? Promise.resolve()
          : new Promise<void>((resolve) => child.once("exit", () => resolve()))
      /** Loss of the whole store: etcd killed (kill -9), its data kept for its return. */
      const killEtcd = async () => {
        etcd?.kill("SIGKILL")
        await exited(etcd)
      }
      startEtcd()

      const nodes: Array<Member> = []
      for (let i = 0; i < members; i++) {
        const name = `pg${i}`
        nodes.push({
          name,
          port: await freePort(),
          apiPort: await freePort(),
          dataDir: join(directory, name),
          config: join(directory, `${name}.yml`),
          patroni: undefined
        })
      }
      for (const member of nodes) {
        writeFileSync(member.config, patroniConfiguration(member, etcdPort, directory, tools.postgresBin))
        own(member.config)
      }
      const startPatroni = (member: Member) => {
        member.patroni = spawnAs(tools.patroni, [member.config], `${member.name}.log`)
      }
      const logs = () =>
        ["etcd", ...nodes.map((m) => m.name)].map((name) => {
          const path = join(directory, `${name}.log`)
          return `--- ${name}\n${existsSync(path) ? readFileSync(path, "utf8").slice(-3_000) : ""}`
        }).join("\n")

      const api = (member: Member, path: string, method = "GET") =>
        fetch(`http://127.0.0.1:${member.apiPort}${path}`, { method, signal: AbortSignal.timeout(2_000) })
      /** The cluster as the first member that answers sees it (Patroni's `GET /cluster`). */
      const cluster = async (): Promise<Array<MemberState>> => {
        for (const member of nodes) {
          try {
            const body = await (await api(member, "/cluster")).json() as { members: Array<MemberState> }
            return body.members
          } catch {
            // Its Patroni is down or cannot reach etcd: ask the next.
          }
        }
        return []
      }
      const leader = async () => (await cluster()).find((m) => m.role === "leader" && m.state === "running")?.name
      /** A leader, and every other member streaming from it, one of them as its synchronous standby. */
      const healthy = async () => {
        const states = await cluster()
        return states.length === nodes.length &&
          states.some((m) => m.role === "leader" && m.state === "running") &&
          states.some((m) => m.role === "sync_standby") &&
          states.every((m) => m.role === "leader" || m.state === "streaming" || m.state === "running")
      }
      const awaitHealthy = (within = 90_000) => until("the Patroni cluster is healthy", healthy, within, logs)

      /** kill -9 of a member's postmaster (its Patroni goes on). */
      const killPostmaster = (name: string) => {
        const member = nodes.find((m) => m.name === name)!
        const pid = Number(readFileSync(join(member.dataDir, "postmaster.pid"), "utf8").split("\n")[0])
        process.kill(pid, "SIGKILL")
        return pid
      }
      const patronictl = (...args: ReadonlyArray<string>) =>
        promisify(execFile)(tools.patronictl, ["-c", nodes[0]!.config, ...args], {
          ...owner,
          cwd: directory,
          env: { ...process.env, HOME: directory },
          timeout: 60_000
        })
      /** A planned switchover, as an operator runs it. */
      const switchover = (from: string, to: string) => patronictl("switchover", "--leader", from, "--candidate", to, "--force")
      /** Changes the cluster's dynamic configuration (`synchronous_mode=false`, ...), as an operator does. */
      const editConfig = (settings: Record<string, string>) =>
        patronictl("edit-config", "--force", ...Object.entries(settings).flatMap(([key, value]) => ["--set", `${key}=${value}`]))
      const logOf = (name: string) => {
        const path = join(directory, `${name}.log`)
        return existsSync(path) ? readFileSync(path, "utf8") : ""
      }
      /** Where a member's log ends now: `rewoundSince` looks only at what follows. */
      const logLength = (name: string) => logOf(name).length
      /** Whether Patroni ran pg_rewind on a member's data since `offset` of its log. */
      const rewoundSince = (name: string, offset: number) => /running pg_rewind from/.test(logOf(name).slice(offset))
      /** Whether a member's Patroni says it is the primary now (what haproxy asks). */
      const isPrimary = (member: Member) => api(member, "/primary", "OPTIONS").then((r) => r.status === 200, () => false)

      const stop = async () => {
        for (const member of nodes) member.patroni?.kill("SIGTERM")
        const timer = setTimeout(() => nodes.forEach((m) => m.patroni?.kill("SIGKILL")), 20_000)
        await Promise.all(nodes.map((m) => exited(m.patroni)))
        clearTimeout(timer)
        // A postmaster left behind by a killed Patroni: only ours, found by its data directory, and
        // only if that process is still the postmaster of that directory (the file may be stale).
        for (const member of nodes) {
          const pidFile = join(member.dataDir, "postmaster.pid")
          if (!existsSync(pidFile)) continue
          const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0])
          try {
            if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(member.dataDir)) process.kill(pid, "SIGKILL")
          } catch {
            // Gone already.
          }
        }
        await killEtcd()
        rmSync(directory, { recursive: true, force: true })
      }
      nodes.forEach(startPatroni)
      // A cluster that does not come up is stopped here: the scope's release is not registered yet.
      await awaitHealthy().catch(async (error) => {
        await stop()
        throw error
      })
      return {
        directory,
        members: nodes as ReadonlyArray<Member>,
        cluster,
        leader,
        awaitHealthy,
        killPostmaster,
        switchover,
        editConfig,
        logLength,
        rewoundSince,
        isPrimary,
        killEtcd,
        startEtcd,
        startPatroni,
        exited,
        logs,
        stop
      }
    }),
    (cluster) => Effect.promise(cluster.stop)
  )

export type PatroniCluster = Effect.Effect.Success<ReturnType<typeof patroniCluster>>
