import { Context } from "effect"
import type { ServiceUrls } from "../e2e/support/StyleClient.js"

/** Where the four service ports of a test answer: spawned processes (Servers.ts) or served in the test process (InProcessServers.ts). */
export class Services extends Context.Tag("e2e/Services")<Services, ServiceUrls>() {}
