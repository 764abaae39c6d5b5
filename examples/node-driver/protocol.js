'use strict';
// The driver protocol's plumbing (docs/protocol.md of tinymemory-conformance): one JSON
// object per line on stdin and stdout, a handshake first, then one answer per call.
// Nothing here knows about memory: `serve` takes the handshake and a table of operations.

const readline = require('node:readline');

const PROTOCOL = { major: 1, minor: 0 };
const CONTRACT = { major: 2, minor: 2 };

// A contract error: `name` is the profile's wire name, `message` the inner message.
class ContractError extends Error {
  constructor(name, message) {
    super(message);
    this.wireName = name;
  }
}

function send(message) {
  // Writes to a pipe are synchronous on POSIX, so a reply is out before the next line is read.
  process.stdout.write(JSON.stringify(message) + '\n');
}

function log(...parts) {
  // stderr is the driver's log; the kit shows its tail when a call goes wrong.
  process.stderr.write(parts.join(' ') + '\n');
}

// Answer the kit until it says `shutdown` or closes stdin.
// `start(options)` returns `{ handshake, operations }`: the handshake fields, and a map
// from operation name (`engine.store`, ...) to `{ target, call(args) }`; a call returns the
// result's wire JSON or throws a ContractError.
function serve(start) {
  let operations = null;
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      log('not JSON:', error.message);
      return;
    }
    if (message.type === 'hello') {
      if (message.contract_version.major !== CONTRACT.major) {
        send(refusal(message.id, `this driver implements contract 2.x, not ${message.contract_version.major}`));
        process.exit(1);
      }
      const served = start(message.options || {});
      operations = served.operations;
      send({ type: 'handshake', id: message.id, protocol: PROTOCOL, contract_version: CONTRACT, ...served.handshake });
    } else if (message.type === 'call') {
      send(answer(operations, message));
    } else if (message.type === 'shutdown') {
      send({ type: 'result', id: message.id, result: null });
      process.exit(0);
    } else {
      log('unknown message type:', message.type);
    }
  });
  lines.on('close', () => process.exit(0));
}

function refusal(id, message) {
  return { type: 'error', id, error: { name: 'Incompatible', message } };
}

function answer(operations, message) {
  const operation = operations && operations[message.op];
  if (!operation) {
    return { type: 'error', id: message.id, error: { name: 'Unsupported', message: `no operation ${message.op}` } };
  }
  try {
    const result = operation.call(message.args || {});
    return { type: 'result', id: message.id, result: result === undefined ? null : result };
  } catch (error) {
    if (error instanceof ContractError) {
      return { type: 'error', id: message.id, error: { name: error.wireName, message: error.message } };
    }
    // A bug of ours: report it as the profile's catch-all, with the stack in the log.
    log(error.stack);
    const name = operation.target === 'engine' ? 'Engine' : 'ai.tinyhumans.tinymemory.Error.Other';
    return { type: 'error', id: message.id, error: { name, message: String(error) } };
  }
}

module.exports = { ContractError, serve, log };
