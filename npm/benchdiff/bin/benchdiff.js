#!/usr/bin/env node
// The `benchdiff` command of the npm package: runs the native binary with the same arguments,
// standard streams and exit status. The binary is BENCHDIFF_BINARY when that is set, else the
// one in this platform's package (an optional dependency, installed only where it matches).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

// Platform (`process.platform-process.arch`) -> the package that holds its binary.
const PLATFORMS = {
  'linux-x64': '@benchdiff/linux-x64',
};

function fail(message) {
  process.stderr.write(`benchdiff: ${message}\n`);
  process.exit(2);
}

function binary() {
  const override = process.env.BENCHDIFF_BINARY;
  if (override) {
    if (!fs.existsSync(override)) {
      fail(`BENCHDIFF_BINARY=${override}: no such file`);
    }
    return override;
  }
  const platform = `${process.platform}-${process.arch}`;
  const pkg = PLATFORMS[platform];
  if (!pkg) {
    fail(
      `no prebuilt binary for ${platform} (prebuilt: ${Object.keys(PLATFORMS).join(', ')}).\n` +
        'Install it with `cargo install benchdiff` (https://rustup.rs for cargo), then run it ' +
        'directly or set BENCHDIFF_BINARY to its path to use it through npx.'
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the package ${pkg} with the binary for ${platform} is not installed.\n` +
        'It is an optional dependency of benchdiff: reinstall without --no-optional / ' +
        '--omit=optional, or set BENCHDIFF_BINARY to a benchdiff binary.'
    );
  }
  const exe = path.join(dir, 'bin', process.platform === 'win32' ? 'benchdiff.exe' : 'benchdiff');
  if (!fs.existsSync(exe)) {
    fail(`${pkg} has no binary at ${exe}; reinstall it, or set BENCHDIFF_BINARY`);
  }
  return exe;
}

const exe = binary();
const result = spawnSync(exe, process.argv.slice(2), { stdio: 'inherit' });
if (result.error) {
  fail(`cannot run ${exe}: ${result.error.message}`);
}
if (result.signal) {
  // End the way the binary ended (e.g. SIGPIPE under `| head`, SIGINT on Ctrl-C).
  // Node ignores some signals (SIGPIPE): then exit as a shell reports a signal, 128 + number.
  process.kill(process.pid, result.signal);
  process.exit(128 + (require('node:os').constants.signals[result.signal] || 0));
}
process.exit(result.status);
