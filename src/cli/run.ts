import { runClient } from './index.ts';

// Entry of the client commands from bin/scanhub.js: loads no server code, so `scanhub upload`
// starts quickly in CI.
process.exitCode = await runClient(process.argv.slice(2));
