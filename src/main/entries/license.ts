import { onItsOwn, runProcess } from "../Process.js"
import { license } from "../ServicePorts.js"

runProcess({ name: "license", requiresServer: true, ports: [onItsOwn(license)] })
