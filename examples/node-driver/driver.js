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

function start(options) {
  // Options arrive in the hello (`--driver-option KEY=VALUE`); this driver takes none.
  const unknown = Object.keys(options);
  if (unknown.length) process.stderr.write(`ignoring options: ${unknown.join(', ')}\n`);
  const engine = new Engine();
  const provider = new Provider();
  const operations = {};
  const expose = (target, object, names) => {
    for (const name of names) {
      operations[`${target}.${name}`] = { target, call: (args) => object[name](args) };
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
