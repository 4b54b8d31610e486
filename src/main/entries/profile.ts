import { onItsOwn, runProcess } from "../Process.js"
import { profile } from "../ServicePorts.js"

runProcess({ name: "profile", requiresServer: true, ports: [onItsOwn(profile)] })
