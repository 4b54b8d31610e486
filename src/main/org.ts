import { dedicatedPort } from "./Settings.js"
import { runProcess, portLayer } from "./Process.js"
import { org } from "./ServicePorts.js"

runProcess({
  name: "org",
  requiresServer: true,
  ports: (settings) => portLayer(org, dedicatedPort(org.portVariable, org.defaultPort), settings)
})
