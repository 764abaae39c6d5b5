'use strict';
// The driver protocol's plumbing (docs/protocol.md of tinymemory-conformance): one JSON
// object per line on stdin and stdout, a handshake first, then one answer per call.
// Nothing here knows about memory: `serve` takes the handshake and a table of operations.
// The handshake says `concurrent`: the kit may send several calls before the first is
// answered, and each is answered, by its id, as soon as its operation is done.

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
  // Writes to a pipe are synchronous on POSIX: each answer goes out whole, in one line.
  process.stdout.write(JSON.stringify(message) + '\n');
}

function log(...parts) {
  // stderr is the driver's log; the kit shows its tail when a call goes wrong.
  process.stderr.write(parts.join(' ') + '\n');
}

// Answer the kit until it says `shutdown` or closes stdin.
// `start(options)` returns `{ handshake, operations }`: the handshake fields, and a map
// from operation name (`engine.store`, ...) to `{ target, call(args) }`; a call returns the
// result's wire JSON (or a promise of it) or throws a ContractError (or rejects with one).
function serve(start) {
  let operations = null;
  const inFlight = new Set();
  let shuttingDown = false;
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
      send({
        type: 'handshake', id: message.id, protocol: PROTOCOL, contract_version: CONTRACT,
        concurrent: true, ...served.handshake,
      });
    } else if (message.type === 'call') {
      // Not awaited: the next line is read while this call runs, and answered when done.
      const answered = answer(operations, message).then(send);
      inFlight.add(answered);
      answered.finally(() => inFlight.delete(answered));
    } else if (message.type === 'shutdown') {
      // The calls under way are answered first; nothing is read after the shutdown.
      shuttingDown = true;
      lines.close();
      Promise.allSettled([...inFlight]).then(() => {
        send({ type: 'result', id: message.id, result: null });
        process.exit(0);
      });
    } else {
      log('unknown message type:', message.type);
    }
  });
  lines.on('close', () => {
    if (!shuttingDown) process.exit(0);
  });
}

function refusal(id, message) {
  return { type: 'error', id, error: { name: 'Incompatible', message } };
}

async function answer(operations, message) {
  const operation = operations && operations[message.op];
  if (!operation) {
    return { type: 'error', id: message.id, error: { name: 'Unsupported', message: `no operation ${message.op}` } };
  }
  try {
    const result = await operation.call(message.args || {});
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
