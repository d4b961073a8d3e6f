#!/usr/bin/env node
// Builds the seven npm packages from GoReleaser's output: the mcpsnoop
// launcher package (packaging/npm/mcpsnoop, with its version and exact-version
// optional dependencies filled in) and one package per platform holding
// that platform's binaries, mcpsnoop and mcpsnoop-shim (mcpsnoop-<os>-<cpu>,
// with os, cpu and files: ["bin/"]), the layout esbuild and biome use. The platform
// packages are unscoped: the @mcpsnoop scope belongs to another publisher
// (packaging/README.md says how the names were chosen).
//
//   node packaging/npm/build.mjs [--dist dist] [--out <dist>/npm] [--version X.Y.Z]
//
// It reads <dist>/artifacts.json for the binaries and <dist>/metadata.json
// for the version, writes <out>/<package folder>/, and prints one folder
// per line, platform packages first: the order to publish them in, so that
// the launcher never names a package that is not there yet.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// GoReleaser's goos/goarch -> npm's os/cpu (process.platform/process.arch).
const OS = { linux: 'linux', darwin: 'darwin', windows: 'win32' };
const CPU = { amd64: 'x64', arm64: 'arm64' };
// The binaries each platform package holds: GoReleaser's build ids, which
// are also the binaries' names. mcpsnoop-shim is what wrap writes into
// client configs when it finds it beside mcpsnoop.
const BINARIES = ['mcpsnoop', 'mcpsnoop-shim'];
// The platform packages' names: mcpsnoop-<os>-<cpu> (bin/mcpsnoop.js has
// the same list).
const PREFIX = 'mcpsnoop-';
// semver 2.0.0, as npm takes it.
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

function die(message) {
  process.stderr.write(`build.mjs: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { dist: 'dist', out: '', version: '' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const key = { '--dist': 'dist', '--out': 'out', '--version': 'version' }[flag];
    if (!key) {
      die(`unknown argument ${JSON.stringify(argv[i])}; usage: build.mjs [--dist DIR] [--out DIR] [--version X.Y.Z]`);
    }
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined || value === '') {
      die(`${flag} needs a value`);
    }
    opts[key] = value;
  }
  opts.out ||= path.join(opts.dist, 'npm');
  return opts;
}

function readJSON(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    die(`${file}: ${err.code === 'ENOENT' ? 'not found (run goreleaser first)' : err.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    die(`${file}: not JSON: ${err.message}`);
  }
}

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const version = (opts.version || readJSON(path.join(opts.dist, 'metadata.json')).version || '').replace(/^v/, '');
  if (!SEMVER.test(version)) {
    die(`version ${JSON.stringify(version)} is not semver, which npm needs`);
  }
  if (fs.existsSync(opts.out) && fs.readdirSync(opts.out).length > 0) {
    die(`${opts.out} is not empty; remove it first`);
  }

  const artifacts = readJSON(path.join(opts.dist, 'artifacts.json'));
  const binaries = new Map();
  for (const a of artifacts) {
    if (a.type !== 'Binary') {
      continue;
    }
    const os = OS[a.goos];
    const cpu = CPU[a.goarch];
    if (!os || !cpu) {
      die(`binary ${a.path} is for ${a.goos}/${a.goarch}, which has no npm package`);
    }
    const id = a.extra && a.extra.ID;
    if (!BINARIES.includes(id)) {
      die(`binary ${a.path} is of build ${JSON.stringify(id)}, which no npm package holds`);
    }
    const key = `${os}-${cpu}/${id}`;
    if (binaries.has(key)) {
      die(`two ${id} binaries for ${os}-${cpu}: ${binaries.get(key)} and ${a.path}`);
    }
    binaries.set(key, a.path);
  }
  const wanted = Object.values(OS).flatMap((os) => Object.values(CPU).map((cpu) => `${os}-${cpu}`));
  const missing = wanted.flatMap((k) => BINARIES.map((id) => `${k}/${id}`)).filter((k) => !binaries.has(k));
  if (missing.length > 0) {
    die(`${path.join(opts.dist, 'artifacts.json')} has no binary for ${missing.join(', ')}; the packages need both binaries for all six platforms`);
  }

  const launcherSrc = path.join(here, 'mcpsnoop');
  const template = readJSON(path.join(launcherSrc, 'package.json'));
  const folders = [];
  const optional = {};
  for (const key of wanted.sort()) {
    const [os, cpu] = key.split('-');
    const name = `${PREFIX}${key}`;
    const dir = path.join(opts.out, key);
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    for (const id of BINARIES) {
      const exe = os === 'win32' ? `${id}.exe` : id;
      const built = binaries.get(`${key}/${id}`);
      // GoReleaser's paths are relative to the folder it ran in, which holds dist.
      const src = path.isAbsolute(built) ? built : path.join(path.dirname(path.resolve(opts.dist)), built);
      fs.copyFileSync(src, path.join(dir, 'bin', exe));
      fs.chmodSync(path.join(dir, 'bin', exe), 0o755);
    }
    writeJSON(path.join(dir, 'package.json'), {
      name,
      version,
      description: `The mcpsnoop binaries for ${os} ${cpu}, version ${version}. Install mcpsnoop, which depends on it, not this package.`,
      homepage: template.homepage,
      repository: { type: 'git', url: template.repository.url, directory: 'packaging/npm' },
      os: [os],
      cpu: [cpu],
      files: ['bin/'],
      // Yarn's Plug'n'Play must put the binary on disk to run it.
      preferUnplugged: true,
    });
    fs.writeFileSync(
      path.join(dir, 'README.md'),
      `# ${name}\n\nThe \`mcpsnoop\` and \`mcpsnoop-shim\` binaries for ${os} ${cpu}, version ${version}. Install ` +
        `[mcpsnoop](https://www.npmjs.com/package/mcpsnoop) instead: it lists this package as an optional ` +
        `dependency, npm installs it on ${os} ${cpu} machines only, and its launcher runs the binary.\n`,
    );
    optional[name] = version;
    folders.push(dir);
  }

  const launcher = path.join(opts.out, 'mcpsnoop');
  fs.mkdirSync(path.join(launcher, 'bin'), { recursive: true });
  fs.copyFileSync(path.join(launcherSrc, 'bin', 'mcpsnoop.js'), path.join(launcher, 'bin', 'mcpsnoop.js'));
  fs.chmodSync(path.join(launcher, 'bin', 'mcpsnoop.js'), 0o755);
  fs.copyFileSync(path.join(launcherSrc, 'README.md'), path.join(launcher, 'README.md'));
  writeJSON(path.join(launcher, 'package.json'), { ...template, version, optionalDependencies: optional });
  folders.push(launcher);

  process.stdout.write(folders.join('\n') + '\n');
}

main();
