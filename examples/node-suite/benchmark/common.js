'use strict';
// A small benchmark harness for benchdiff's example suite, written for this project.
// It speaks the protocol of Node's benchmark/common.js, so benchdiff (and Node's compare.js)
// can run these files:
// - the first process (the controller) expands the configuration lists into their cartesian
//   product and runs every configuration in a fresh child process (a worker);
// - when the controller has an IPC channel (it was forked by a runner) it sends
//   {type:'config', name, queueLength} and relays each worker's
//   {type:'report', name, conf, rate, time} message; otherwise it prints one line per
//   configuration: `name key=<JSON value> ...: <rate with thousands separators>`;
// - `key=value` arguments replace a parameter's list (repeat a key for several values);
//   the value takes the type of the parameter's first default. Other arguments are forwarded.
// - rate is operations per second; time is the measured seconds with exactly 9 decimals.

const { fork } = require('child_process');
const path = require('path');

const WORKER_ENV = 'NODE_RUN_BENCHMARK_FN';

function parseArgs(argv, configs) {
  const overrides = {};
  const extra = [];
  for (const arg of argv) {
    const eq = arg.indexOf('=');
    if (eq <= 0) {
      console.error(`bad argument: ${arg}`);
      process.exit(1);
    }
    const key = arg.slice(0, eq);
    const raw = arg.slice(eq + 1);
    if (!(key in configs)) {
      extra.push(arg);
      continue;
    }
    const first = [].concat(configs[key])[0];
    let value = raw;
    if (typeof first === 'number') value = Number(raw);
    else if (typeof first === 'boolean') value = raw === 'true';
    (overrides[key] = overrides[key] || []).push(value);
  }
  const lists = {};
  for (const key of Object.keys(configs)) {
    lists[key] = overrides[key] || [].concat(configs[key]);
  }
  return { lists, extra };
}

// Cartesian product, first key varying slowest; keys keep their declaration order.
function expand(lists) {
  let out = [{}];
  for (const key of Object.keys(lists)) {
    const next = [];
    for (const partial of out) {
      for (const value of lists[key]) next.push({ ...partial, [key]: value });
    }
    out = next;
  }
  return out;
}

function formatLine(name, conf, rate) {
  let line = name;
  for (const key of Object.keys(conf)) line += ` ${key}=${JSON.stringify(conf[key])}`;
  const text = String(rate);
  const dot = text.indexOf('.');
  const int = dot === -1 ? text : text.slice(0, dot);
  const grouped = int.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${line}: ${grouped}${dot === -1 ? '' : text.slice(dot)}`;
}

function secondsString(ns) {
  const s = ns / 1000000000n;
  const frac = String(ns % 1000000000n).padStart(9, '0');
  return `${s}.${frac}`;
}

class Benchmark {
  constructor(main, configs, options = {}) {
    this.name = path.relative(__dirname, require.main.filename).split(path.sep).join('/');
    this.main = main;
    this.flags = [].concat(options.flags || []);
    const { lists, extra } = parseArgs(process.argv.slice(2), configs);
    this.extra = extra;
    this.queue = expand(lists);
    this.config = this.queue[0];
    this._start = null;
    this._ended = false;
    process.nextTick(() => {
      if (process.env[WORKER_ENV] !== undefined) this.main(this.config);
      else this._control();
    });
  }

  _control() {
    if (process.send) {
      process.send({ type: 'config', name: this.name, queueLength: this.queue.length });
    }
    const runNext = (i) => {
      if (i >= this.queue.length) return;
      const conf = this.queue[i];
      const args = Object.keys(conf).map((k) => `${k}=${conf[k]}`).concat(this.extra);
      const child = fork(require.main.filename, args, {
        env: { ...process.env, [WORKER_ENV]: '' },
        execArgv: this.flags.concat(process.execArgv),
      });
      child.on('message', (msg) => {
        if (!msg || msg.type !== 'report') return;
        if (process.send) process.send(msg);
        else console.log(formatLine(msg.name, msg.conf, msg.rate));
      });
      child.on('exit', (code, signal) => {
        if (signal) process.kill(process.pid, signal);
        else if (code !== 0) process.exit(code);
        else runNext(i + 1);
      });
    };
    runNext(0);
  }

  start() {
    if (this._start !== null) throw new Error('start() called twice');
    this._start = process.hrtime.bigint();
  }

  end(operations) {
    const stop = process.hrtime.bigint();
    if (this._start === null) throw new Error('end() called before start()');
    if (this._ended) throw new Error('end() called twice');
    if (typeof operations !== 'number' || !(operations > 0)) {
      throw new Error('end(operations) needs a positive operation count');
    }
    this._ended = true;
    const elapsed = stop - this._start;
    if (elapsed <= 0n) throw new Error('the clock did not advance: raise n');
    const rate = operations / (Number(elapsed) / 1e9);
    const report = { name: this.name, conf: this.config, rate, time: secondsString(elapsed), type: 'report' };
    if (process.send) process.send(report, () => process.disconnect());
    else console.log(formatLine(this.name, this.config, rate));
  }
}

exports.createBenchmark = (main, configs, options) => new Benchmark(main, configs, options);
