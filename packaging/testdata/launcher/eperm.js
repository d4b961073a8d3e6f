// Preloaded into the launcher (node -r eperm.js): every liveness probe,
// process.kill(pid, 0), fails with EPERM, as it does for a process of
// another user (npm run under sudo), and is counted on stderr.
'use strict';
const fs = require('node:fs');
const kill = process.kill.bind(process);
let probes = 0;
process.kill = (pid, sig) => {
  if (sig === 0) {
    probes++;
    fs.writeSync(2, `probe ${probes}\n`);
    const err = new Error(`kill EPERM`);
    err.code = 'EPERM';
    throw err;
  }
  return kill(pid, sig);
};
