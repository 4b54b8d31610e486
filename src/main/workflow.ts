import { dedicatedPort } from "./Settings.js"
import { runProcess, portLayer } from "./Process.js"
import { workflow } from "./ServicePorts.js"

runProcess({
  name: "workflow",
  requiresServer: true,
  ports: (settings) => portLayer(workflow, dedicatedPort(workflow.portVariable, workflow.defaultPort), settings)
})
