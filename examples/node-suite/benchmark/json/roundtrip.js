'use strict';
// JSON.stringify then JSON.parse of an object with `keys` properties.
const common = require('../common.js');

const bench = common.createBenchmark(main, {
  keys: [10, 100],
  n: [5000],
});

function main({ keys, n }) {
  const obj = {};
  for (let i = 0; i < keys; i++) obj[`key${i}`] = { id: i, label: `item ${i}`, ok: i % 2 === 0 };
  let total = 0;
  bench.start();
  for (let i = 0; i < n; i++) total += JSON.parse(JSON.stringify(obj)).key0.id;
  bench.end(n);
  if (total !== 0) throw new Error('unexpected');
}
