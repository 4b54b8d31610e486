// Part of `npm run build`: the embedded database's template (src/services/embedded/EmbeddedTemplate.ts),
// made once per PGlite version; a build with one in place does nothing here.
import { writeTemplate } from "../dist/services/embedded/EmbeddedTemplate.js"

const outcome = await writeTemplate()
if (outcome === "made") console.log("embedded database template made (dist/embedded)")
