import { dedicatedPort } from "./Settings.js"
import { runProcess, portLayer } from "./Process.js"
import { license } from "./ServicePorts.js"

runProcess({
  name: "license",
  requiresServer: true,
  ports: (settings) => portLayer(license, dedicatedPort(license.portVariable, license.defaultPort), settings)
})
