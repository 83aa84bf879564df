'use strict';
// Building a string from many pieces: `+=` versus Array#join.
const common = require('../common.js');

const bench = common.createBenchmark(main, {
  method: ['plus', 'join'],
  n: [200000],
});

function main({ method, n }) {
  let out;
  bench.start();
  if (method === 'plus') {
    let s = '';
    for (let i = 0; i < n; i++) s += 'ab';
    out = s;
  } else {
    const parts = [];
    for (let i = 0; i < n; i++) parts.push('ab');
    out = parts.join('');
  }
  bench.end(n);
  if (out.length !== 2 * n) throw new Error('wrong length');
}
