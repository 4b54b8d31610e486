import { Layer } from "effect"
import { portLayer, runProcess } from "./Process.js"
import { license, org, profile, workflow } from "./ServicePorts.js"
import { servicePort } from "./Settings.js"

// All four services in one process, on the embedded database unless DATABASE_URL is set.
runProcess({
  name: "all",
  requiresServer: false,
  ports: (settings) =>
    Layer.mergeAll(
      portLayer(org, servicePort(org.portVariable, org.defaultPort), settings),
      portLayer(profile, servicePort(profile.portVariable, profile.defaultPort), settings),
      portLayer(license, servicePort(license.portVariable, license.defaultPort), settings),
      portLayer(workflow, servicePort(workflow.portVariable, workflow.defaultPort), settings)
    )
})
