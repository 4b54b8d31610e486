// Part of `npm run build`: the embedded database's template (src/services/embedded/EmbeddedTemplate.ts),
// made once per PGlite version; a build with one in place does nothing here.
import { writeTemplate } from "../dist/services/embedded/EmbeddedTemplate.js"

// scripts/build.mjs says when this runs and what it took.
await writeTemplate()
