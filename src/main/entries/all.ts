import { besideOthers, runProcess } from "../Process.js"
import { license, org, profile, workflow } from "../ServicePorts.js"

// All four services in one process, on the embedded database unless DATABASE_URL is set.
runProcess({
  name: "all",
  requiresServer: false,
  ports: [besideOthers(org), besideOthers(profile), besideOthers(license), besideOthers(workflow)]
})
