'use strict';
// Sorting 1,000-element arrays of numbers or of strings.
const common = require('../common.js');

const bench = common.createBenchmark(main, {
  type: ['number', 'string'],
  len: [1000],
  n: [100],
});

function main({ type, len, n }) {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const base = Array.from({ length: len }, () => (type === 'number' ? next() : String(next())));
  const copies = Array.from({ length: n }, () => base.slice());
  bench.start();
  for (let i = 0; i < n; i++) {
    if (type === 'number') copies[i].sort((a, b) => a - b);
    else copies[i].sort();
  }
  bench.end(n);
}
