import { onItsOwn, runProcess } from "../Process.js"
import { workflow } from "../ServicePorts.js"

runProcess({ name: "workflow", requiresServer: true, ports: [onItsOwn(workflow)] })
