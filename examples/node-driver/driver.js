#!/usr/bin/env node
'use strict';
// A TinyMemory driver in Node.js, with no dependencies: both profiles, in memory.
//
//   pytest --driver "exec:node examples/node-driver/driver.js"
//
// The kit starts this process, says hello, and calls one operation per line; see
// protocol.js for the plumbing, engine.js and provider.js for the two profiles.

const { serve } = require('./protocol');
const { Engine } = require('./engine');
const { Provider, DRIVER_ID } = require('./provider');

// The store is in memory; `delay_ms` makes each operation answer that much later, as a
// store across a network would, without holding up the others meanwhile.
const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function start(options) {
  // Options arrive in the hello (`--driver-option KEY=VALUE`); this driver takes one.
  const { delay_ms: delayOption, ...unknown } = options;
  if (Object.keys(unknown).length) {
    process.stderr.write(`ignoring options: ${Object.keys(unknown).join(', ')}\n`);
  }
  const delay = Number(delayOption || 0);
  if (!(delay >= 0 && Number.isFinite(delay))) {
    process.stderr.write(`ignoring delay_ms=${delayOption}: not a number of milliseconds\n`);
  }
  const wait = delay > 0 && Number.isFinite(delay) ? delay : 0;
  const engine = new Engine();
  const provider = new Provider();
  const operations = {};
  const expose = (target, object, names) => {
    for (const name of names) {
      const call = wait ? (args) => later(wait).then(() => object[name](args)) : (args) => object[name](args);
      operations[`${target}.${name}`] = { target, call };
    }
  };
  expose('engine', engine, ['health', 'store', 'store_many', 'fetch', 'recall', 'list', 'forget', 'explore', 'get']);
  expose('provider', provider, [
    'health', 'shutdown', 'provides', 'as_documents', 'store', 'get', 'forget', 'list',
    'namespaces', 'recall', 'export_page', 'import_records',
  ]);
  return {
    handshake: {
      driver_id: DRIVER_ID,
      driver_version: require('./package.json').version,
      profiles: ['engine', 'provider'],
      capabilities: provider.capabilities(),
      engine: engine.descriptor(),
    },
    operations,
  };
}

serve(start);
