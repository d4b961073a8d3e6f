// A stand-in for the mcpsnoop binary, for the launcher's tests: it says
// "ready", then "got SIGTERM" (exit 42) on SIGTERM, or "stdin ended"
// (exit 0) when its stdin ends.
'use strict';
const say = (line, code) => process.stdout.write(`${line}\n`, () => process.exit(code));
process.on('SIGTERM', () => say('got SIGTERM', 42));
process.stdin.on('end', () => say('stdin ended', 0));
process.stdin.resume();
process.stdout.write('ready\n');
