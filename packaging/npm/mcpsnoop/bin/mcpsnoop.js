#!/usr/bin/env node
// mcpsnoop's npm launcher. The mcpsnoop package holds no program of its
// own: npm installs, of the six platform packages listed as optional
// dependencies, the one whose os and cpu match this machine, and this
// script starts the binary in it. Nothing is downloaded at install time, so
// it works with --ignore-scripts and behind a proxy.
//
// The launcher stays out of the way: the binary inherits stdin, stdout and
// stderr (no byte passes through this process, which keeps the stdio data
// path of `mcpsnoop -- <server>` byte-exact), signals sent to the launcher
// are passed on, and the launcher exits as the binary did. It tells the
// binary which process started it (MCPSNOOP_LAUNCHER), so that sessions are
// grouped by the MCP client that started them, not by this script.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// process.platform-process.arch -> the package holding that build. The
// names are unscoped: the @mcpsnoop scope on npm belongs to another
// publisher (packaging/README.md).
const PLATFORMS = {
  'darwin-arm64': 'mcpsnoop-darwin-arm64',
  'darwin-x64': 'mcpsnoop-darwin-x64',
  'linux-arm64': 'mcpsnoop-linux-arm64',
  'linux-x64': 'mcpsnoop-linux-x64',
  'win32-arm64': 'mcpsnoop-win32-arm64',
  'win32-x64': 'mcpsnoop-win32-x64',
};

// The launcher's own version: the binary it runs must be the same.
const VERSION = require('../package.json').version;

// The signals passed on. A Ctrl-C in a terminal reaches the launcher and
// the binary both (they share a process group, so that the binary keeps
// the terminal), and the binary then sees SIGINT twice. SIGUSR1 is Node's
// own: without a listener it opens the inspector (on 127.0.0.1:9229) in the
// launcher; with one it is the binary's, like the others. On Windows a
// console's Ctrl-C and close reach every process on it, and "sending" a
// signal there ends the process at once: the launcher only waits for the
// binary, which shuts down the way it chooses.
const WINDOWS = process.platform === 'win32';
const FORWARDED = WINDOWS ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];
const WAIT_ONLY = WINDOWS ? ['SIGINT', 'SIGBREAK', 'SIGHUP'] : [];

// The signals the launcher raises on itself when the binary died of one:
// those that end a process by default and that Node leaves alone. Node
// takes SIGUSR1 for its inspector and ignores SIGPIPE, and SIGSEGV, SIGBUS,
// SIGFPE and SIGILL are a crash's (Node may handle them itself): for those
// the launcher exits 128+n, as a shell reports a child killed by n.
const RERAISED = new Set([
  'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGKILL', 'SIGUSR2', 'SIGALRM', 'SIGABRT',
  'SIGXCPU', 'SIGXFSZ', 'SIGVTALRM',
]);

function fail(message) {
  process.stderr.write(`mcpsnoop: ${message}\n`);
  process.exit(1);
}

function binaryPath() {
  const override = process.env.MCPSNOOP_BINARY;
  if (override) {
    if (!fs.existsSync(override)) {
      fail(`MCPSNOOP_BINARY is ${JSON.stringify(override)}, which does not exist`);
    }
    // A name without a slash is the file in the current folder that was
    // just found, not a program to look up in PATH (which may be this
    // launcher).
    return path.resolve(override);
  }
  const key = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[key];
  if (!pkg) {
    fail(
      `there is no prebuilt binary for ${key}. Build one with Go ` +
        `(go install github.com/mcpsnoop/mcpsnoop/cmd/mcpsnoop@latest) and set MCPSNOOP_BINARY to its path`,
    );
  }
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    fail(
      `the package ${pkg}, which holds the binary for ${key}, is not installed. npm leaves it out ` +
        `with --omit=optional (or --no-optional), and a lockfile written on another platform may lack it: ` +
        `install mcpsnoop again without those, or set MCPSNOOP_BINARY to an mcpsnoop binary`,
    );
  }
  // A lockfile or an install interrupted half-way can pair this launcher
  // with another version's binary; its flags, its log format and its exit
  // codes are that version's, so it is refused rather than run.
  let version;
  try {
    version = JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
  } catch (err) {
    fail(`cannot read ${manifest}: ${err.message}`);
  }
  if (version !== VERSION) {
    fail(
      `the package ${pkg} holds mcpsnoop ${version}, and this launcher is mcpsnoop ${VERSION}; ` +
        `npm installed two versions that do not go together (a lockfile from another version?). ` +
        `Install mcpsnoop@${VERSION} again (npm i mcpsnoop@${VERSION}), or set MCPSNOOP_BINARY to an mcpsnoop binary`,
    );
  }
  return path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'mcpsnoop.exe' : 'mcpsnoop');
}

// procInfo is the parent pid and the command line of pid, or null.
function procInfo(pid) {
  try {
    if (process.platform === 'linux') {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      return { ppid: Number(fields[1]), args };
    }
    if (process.platform === 'darwin') {
      const r = spawnSync('/bin/ps', ['-o', 'ppid=,args=', '-p', String(pid)], { encoding: 'utf8' });
      const m = /^\s*(\d+)\s+(.*)$/.exec(r.stdout || '');
      return m ? { ppid: Number(m[1]), args: m[2].trim().split(/\s+/) } : null;
    }
  } catch {
    // gone, or not ours to read
  }
  return null;
}

function isShell(args) {
  const name = path.basename(args[0] || '').replace(/^-/, '');
  return ['sh', 'bash', 'dash', 'zsh', 'ksh'].includes(name) && args.includes('-c');
}

// isNpm: npm names its process "npm exec ..." (process.title, which on
// Linux replaces the whole command line with one string), or it is node
// running npm's or npx's CLI script.
function isNpm(args) {
  const name = path.basename((args[0] || '').trim().split(/\s+/)[0]);
  return name === 'npm' || name === 'npx' || args.slice(0, 3).some((a) => /(^|[\\/])np[mx]-cli\.js$/.test(a));
}

// findClient names the process that started mcpsnoop: the launcher's
// parent, except under npx or npm exec, which run the launcher through
// `sh -c` below their own process: then the process that started npm, and
// npm's pid is returned too. Only a chain of shells ending in npm is
// skipped, so a client that runs the launcher itself is named even when
// npm started that client.
function findClient() {
  const ppid = process.ppid;
  if (process.env.npm_command !== 'exec' && process.env.npm_lifecycle_event !== 'npx') {
    return { client: ppid, npm: 0 };
  }
  let pid = ppid;
  for (let hops = 0; hops < 4; hops++) {
    const p = procInfo(pid);
    if (!p) {
      break;
    }
    if (isNpm(p.args)) {
      return p.ppid > 0 ? { client: p.ppid, npm: pid } : { client: ppid, npm: 0 };
    }
    if (!isShell(p.args)) {
      break;
    }
    pid = p.ppid;
  }
  return { client: ppid, npm: 0 };
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

// watchNpx covers what npx loses: a client's SIGTERM reaches npm, npm passes
// it to the shell it started the launcher in, and the shell dies without
// passing it on. Once that shell or npm itself is gone, the binary gets the
// SIGTERM the client sent. (A launcher started by a client directly is not
// watched: a parent that exits on purpose, a script that started mcpsnoop
// in the background, must not end it.)
function watchNpx(npm, child) {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent || !alive(npm)) {
      clearInterval(timer);
      try {
        child.kill('SIGTERM');
      } catch {
        // already gone
      }
    }
  }, 200);
  timer.unref();
}

function main() {
  const bin = binaryPath();
  const { client, npm } = findClient();
  const env = { ...process.env, MCPSNOOP_LAUNCHER: `${process.pid}:${client}` };
  const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', env, windowsHide: true });
  if (npm > 0 && !WINDOWS) {
    watchNpx(npm, child);
  }

  const handlers = {};
  for (const sig of FORWARDED) {
    handlers[sig] = () => {
      try {
        child.kill(sig);
      } catch {
        // the child is gone; its exit is on its way
      }
    };
    process.on(sig, handlers[sig]);
  }
  for (const sig of WAIT_ONLY) {
    handlers[sig] = () => {};
    process.on(sig, handlers[sig]);
  }

  child.on('error', (err) => fail(`cannot run ${bin}: ${err.message}`));
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, so that our parent sees what happened;
      // a signal Node keeps for itself, or one that might not end the
      // launcher, leaves the shell's 128+n. Only the signal raised loses
      // its listener: a SIGUSR1 arriving meanwhile must not open the
      // inspector.
      const status = 128 + (os.constants.signals[signal] || 0);
      if (!RERAISED.has(signal)) {
        process.exit(status);
      }
      if (handlers[signal]) {
        process.removeListener(signal, handlers[signal]);
      }
      try {
        process.kill(process.pid, signal);
      } catch {
        process.exit(status);
      }
      setTimeout(() => process.exit(status), 500);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

main();
