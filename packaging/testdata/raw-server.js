// A stand-in stdio server for the npm launcher's end-to-end tests; it
// speaks bytes, not MCP, so that the test sees exactly what crossed.
//
//   node raw-server.js bytes SEND GOT CODE  writes the bytes of file SEND to
//                                           stdout, copies stdin to file GOT
//                                           until it ends, then exits CODE
//   node raw-server.js term MARKER          prints "ready" once it handles
//                                           SIGTERM; on SIGTERM writes
//                                           MARKER and exits 42; exits 0
//                                           when its stdin ends
//   node raw-server.js signal SIG MARKER    the same for signal SIG (SIGUSR1:
//                                           a listener keeps Node's
//                                           inspector shut)
'use strict';
const fs = require('node:fs');

const [mode, ...args] = process.argv.slice(2);
if (mode === 'bytes') {
  const [send, got, code] = args;
  const out = fs.createWriteStream(got);
  let wrote = false;
  let ended = false;
  const finish = () => {
    if (wrote && ended) {
      out.end(() => process.exit(Number(code)));
    }
  };
  process.stdin.on('data', (chunk) => out.write(chunk));
  process.stdin.on('end', () => {
    ended = true;
    finish();
  });
  process.stdout.write(fs.readFileSync(send), () => {
    wrote = true;
    finish();
  });
} else if (mode === 'term' || mode === 'signal') {
  const [sig, marker] = mode === 'term' ? ['SIGTERM', ...args] : args;
  process.on(sig, () => {
    fs.writeFileSync(marker, `${sig}\n`);
    process.exit(42);
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
  process.stdout.write('ready\n');
} else {
  process.stderr.write(`raw-server.js: unknown mode ${mode}\n`);
  process.exit(2);
}
