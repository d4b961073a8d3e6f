// A stand-in for npm exec (npx), for the launcher's tests: like npm, it
// runs the command through `sh -c`, in a shell that stays between it and
// the command, and stays up itself until it is killed. It says on stderr
// the shell's pid, and how the shell ended.
//
//   node npm-cli.js COMMAND [ARG...]
'use strict';
const { spawn } = require('node:child_process');

const sh = spawn('/bin/sh', ['-c', '"$0" "$@"; exit $?', ...process.argv.slice(2)], { stdio: 'inherit' });
process.stderr.write(`sh ${sh.pid}\n`);
sh.on('exit', (code, signal) => process.stderr.write(`sh ended ${code} ${signal}\n`));
setInterval(() => {}, 1 << 30);
