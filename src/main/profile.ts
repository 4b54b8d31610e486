import { dedicatedPort } from "./Settings.js"
import { runProcess, portLayer } from "./Process.js"
import { profile } from "./ServicePorts.js"

runProcess({
  name: "profile",
  requiresServer: true,
  ports: (settings) => portLayer(profile, dedicatedPort(profile.portVariable, profile.defaultPort), settings)
})
