import { onItsOwn, runProcess } from "../Process.js"
import { org } from "../ServicePorts.js"

runProcess({ name: "org", requiresServer: true, ports: [onItsOwn(org)] })
