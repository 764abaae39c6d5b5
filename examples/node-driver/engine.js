'use strict';
// The engine profile (contract B1–B8), in memory: items in insertion order under an id
// derived from their identity, keyword fetch only, explore and get served directly.

const crypto = require('node:crypto');
const { ContractError } = require('./protocol');

const ENGINE_ID = 'node-memory';
const MAX_STORE_MANY = 100;
const MAX_GET_IDS = 200;
const MAX_BUCKETS = 500;
const MAX_SCAN_LIMIT = 50000;

const invalid = (message) => new ContractError('InvalidRequest', message);

// Rust's `str::trim` white space (Unicode White_Space), which decides what is blank.
const BLANK = /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
const isBlank = (text) => typeof text !== 'string' || BLANK.test(text);

// Strings compared by code point, as the contract (and Python) order them.
function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

// -- items ----------------------------------------------------------------------------

function displayF32(value) {
  if (value === 'Infinity' || value === Infinity) return 'inf';
  if (value === '-Infinity' || value === -Infinity) return '-inf';
  return String(value);
}

function validateItem(item) {
  if (item.type === 'document') {
    if (item.body && item.body.uri !== undefined) {
      throw invalid('document body is an unresolved uri; resolve it through a source first');
    }
    if (isBlank(item.body && item.body.text)) throw invalid('document body must not be empty');
  } else if (item.type === 'conversation') {
    if (!item.turns || item.turns.length === 0) throw invalid('conversation must have at least one turn');
    if (item.turns.some((turn) => isBlank(turn.text))) throw invalid('conversation turns must not be empty');
  } else if (item.type === 'learning') {
    if (isBlank(item.text)) throw invalid('learning text must not be empty');
    const c = item.confidence;
    // A non-finite confidence arrives as the string "NaN", "Infinity" or "-Infinity".
    if (typeof c !== 'number' || !(c >= 0 && c <= 1)) {
      throw invalid(`learning confidence ${displayF32(c)} is outside 0.0..=1.0`);
    }
  } else {
    throw invalid(`unknown item type ${JSON.stringify(item.type)}`);
  }
}

function renderText(item) {
  if (item.type === 'document') {
    const body = item.body.text !== undefined ? item.body.text : item.body.uri;
    return item.title !== undefined && !isBlank(item.title) ? `# ${item.title}\n\n${body}` : body;
  }
  if (item.type === 'conversation') {
    return item.turns
      .map((turn) => {
        const tools = turn.tool_calls || [];
        const named = tools.map((t) => (t.id ? `${t.name} (${t.id})` : t.name));
        return `${turn.role}: ${turn.text}` + (named.length ? ` [tools: ${named.join(', ')}]` : '');
      })
      .join('\n');
  }
  return item.text;
}

// The identity of an item: its wire JSON without when it was observed, by whom, or the
// tool call's id. The kit writes an item's JSON the same way every time, so equal items
// hash alike. (Ids are opaque: this is not the contract's fingerprint, nor need it be.)
function identity(item) {
  const copy = JSON.parse(JSON.stringify(item));
  const meta = copy.meta || {};
  delete meta.observed_at;
  delete meta.observed_actor;
  if (meta.tool_call) delete meta.tool_call.id;
  return 'n' + crypto.createHash('sha256').update(JSON.stringify(copy)).digest('hex').slice(0, 39);
}

// -- namespaces and filters -------------------------------------------------------------

const segments = (ns) => (!ns || ns === 'root' ? [] : ns.split('/'));
const within = (inner, outer) => outer.length <= inner.length && outer.every((s, i) => s === inner[i]);

function admits(reach, namespace) {
  const at = segments(reach.at);
  const ns = segments(namespace);
  if (at.length === ns.length && within(ns, at)) return true;
  if (reach.inherit !== false && within(at, ns)) return true;
  return reach.descendants === true && within(ns, at);
}

// An RFC 3339 time as nanoseconds since the epoch (BigInt), or null.
function instant(text) {
  const m = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?([Zz]|[+-]\d\d:\d\d)$/.exec(text || '');
  if (!m) return null;
  const day = new Date(0);
  day.setUTCFullYear(+m[1], +m[2] - 1, +m[3]);
  day.setUTCHours(+m[4], +m[5], +m[6], 0);
  let offset = 0;
  if (m[8] !== 'Z' && m[8] !== 'z') {
    const sign = m[8][0] === '-' ? -1 : 1;
    offset = sign * (Number(m[8].slice(1, 3)) * 3600 + Number(m[8].slice(4, 6)) * 60);
  }
  const fraction = BigInt((m[7] || '').padEnd(9, '0'));
  return BigInt(day.getTime() / 1000 - offset) * 1000000000n + fraction;
}

function underPath(wanted, held) {
  if (wanted === undefined) return true;
  if (held === undefined) return false;
  if (held === wanted) return true;
  const base = wanted.replace(/\/+$/, '');
  return held.startsWith(base) && (held.length === base.length || held[base.length] === '/');
}

const EXACT = ['workspace', 'language', 'repo', 'commit', 'url', 'thread_id', 'agent_id'];

function matches(filter, entry) {
  const meta = entry.item.meta || {};
  const source = meta.source || { kind: 'agent' };
  if (filter.kinds && filter.kinds.length && !filter.kinds.includes(entry.item.type)) return false;
  if (filter.reach && !admits(filter.reach, meta.namespace)) return false;
  for (const field of EXACT) {
    if (filter[field] !== undefined && meta[field] !== filter[field]) return false;
  }
  if (!underPath(filter.folder, meta.folder) || !underPath(filter.file_path, meta.file_path)) return false;
  if (filter.turns && !(meta.turns && meta.turns.first === filter.turns.first && meta.turns.last === filter.turns.last)) {
    return false;
  }
  if (filter.tool_call !== undefined && (meta.tool_call ? meta.tool_call.name : undefined) !== filter.tool_call) return false;
  if (filter.source_id !== undefined && source.id !== filter.source_id) return false;
  if (filter.sources && filter.sources.length && !filter.sources.includes(source.kind)) return false;
  if (filter.tags_any && filter.tags_any.length && !(meta.tags || []).some((t) => filter.tags_any.includes(t))) return false;
  if (filter.observed_after !== undefined || filter.observed_before !== undefined) {
    const at = instant(meta.observed_at);
    if (at === null) return false;
    if (filter.observed_after !== undefined && at < instant(filter.observed_after)) return false;
    if (filter.observed_before !== undefined && !(at < instant(filter.observed_before))) return false;
  }
  return true;
}

const isEmptyFilter = (filter) =>
  Object.values(filter || {}).every((v) => v === undefined || v === null || (Array.isArray(v) && v.length === 0));

// -- facets ---------------------------------------------------------------------------

const FACET_FIELD = {
  workspace: 'workspace', folder: 'folder', file_path: 'file_path', language: 'language',
  repo: 'repo', url: 'url', thread: 'thread_id', agent: 'agent_id',
};

function facetValues(facet, entry) {
  const meta = entry.item.meta || {};
  const source = meta.source || { kind: 'agent' };
  switch (facet) {
    case 'kind': return [entry.item.type];
    case 'source': return [source.kind];
    case 'source_id': return source.id !== undefined ? [source.id] : [];
    case 'namespace': return [meta.namespace || 'root'];
    case 'tag': return meta.tags || [];
    case 'tool_call': return meta.tool_call ? [meta.tool_call.name] : [];
    default: {
      const field = FACET_FIELD[facet];
      if (field === undefined) throw invalid(`\`${facet}\` is not a facet`);
      return meta[field] !== undefined ? [meta[field]] : [];
    }
  }
}

// -- scoring --------------------------------------------------------------------------

const words = (text) => new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []));

// The share of the query's distinct words the text holds; 0 is not a hit.
function keywordScore(queryWords, entry) {
  if (queryWords.size === 0) return 0;
  let found = 0;
  for (const word of queryWords) if (entry.words.has(word)) found += 1;
  return found / queryWords.size;
}

// -- the engine -----------------------------------------------------------------------

function cursorPosition(cursor) {
  if (cursor === undefined || cursor === null) return 0;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(cursor)) throw invalid(`unknown cursor \`${cursor}\``);
  return Number(cursor);
}

function requirePositive(limit, what) {
  if (!(limit > 0)) throw invalid(`${what} limit must be positive`);
}

class Engine {
  constructor() {
    this.entries = []; // insertion order; each keeps its sequence number
    this.byId = new Map();
    this.nextSeq = 0;
  }

  descriptor() {
    return {
      id: ENGINE_ID,
      label: 'Node.js example (in-memory)',
      description: 'The tinymemory-conformance protocol example: items in memory, keyword fetch',
      hosted: false,
      needs_endpoint: false,
      needs_key: false,
      default_endpoint: null,
      fetch_modes: ['keyword'],
    };
  }

  health() {
    return { state: 'ok' };
  }

  store({ item }) {
    validateItem(item);
    return this.write(item);
  }

  write(item) {
    const id = identity(item);
    if (this.byId.has(id)) return { id, replayed: true };
    const text = renderText(item);
    const entry = { seq: this.nextSeq++, id, item, text, words: words(text) };
    this.entries.push(entry);
    this.byId.set(id, entry);
    return { id, replayed: false };
  }

  store_many({ items }) {
    if (items.length < 1 || items.length > MAX_STORE_MANY) {
      throw invalid(`store_many takes between 1 and ${MAX_STORE_MANY} items`);
    }
    items.forEach(validateItem); // every item before any is written
    return items.map((item) => this.write(item));
  }

  hit(entry, score) {
    const hit = { id: entry.id, kind: entry.item.type, text: entry.text, meta: entry.item.meta, score };
    if (entry.item.type === 'learning') hit.confidence = entry.item.confidence;
    return hit;
  }

  admitted(filter) {
    return isEmptyFilter(filter) ? this.entries : this.entries.filter((e) => matches(filter, e));
  }

  list({ req }) {
    requirePositive(req.limit, 'list');
    const start = cursorPosition(req.cursor);
    const items = [];
    let next = null;
    for (const entry of this.entries) {
      if (entry.seq < start || !matches(req.filter || {}, entry)) continue;
      if (items.length === req.limit) {
        next = String(entry.seq);
        break;
      }
      items.push(this.hit(entry, 0.0));
    }
    return next === null ? { items } : { items, next_cursor: next };
  }

  rank(query, filter) {
    const wanted = words(query);
    return this.admitted(filter || {})
      .map((entry) => [keywordScore(wanted, entry), entry])
      .filter(([score]) => score > 0)
      .sort((a, b) => b[0] - a[0] || a[1].seq - b[1].seq);
  }

  fetch({ req }) {
    if (!this.descriptor().fetch_modes.includes(req.mode)) {
      throw new ContractError('Unsupported', `engine \`${ENGINE_ID}\` does not offer ${req.mode} fetch`);
    }
    if (isBlank(req.query)) throw invalid('fetch query must not be empty');
    requirePositive(req.limit, 'fetch');
    const start = cursorPosition(req.cursor);
    const ranked = this.rank(req.query, req.filter);
    const page = ranked.slice(start, start + req.limit);
    const end = start + page.length;
    const hits = page.map(([score, entry]) => this.hit(entry, score));
    return end < ranked.length ? { hits, next_cursor: String(end) } : { hits };
  }

  recall({ req }) {
    if (isBlank(req.question)) throw invalid('recall question must not be empty');
    requirePositive(req.limit, 'recall');
    const ranked = this.rank(req.question, req.filter).slice(0, req.limit);
    const citations = ranked.map(([score, entry]) => ({
      id: entry.id, kind: entry.item.type, snippet: entry.text, meta: entry.item.meta, score,
    }));
    const answer = citations.length
      ? `From ${citations.length} stored items: ` + citations.map((c) => c.snippet).join(' | ')
      : 'Nothing stored answers this question.';
    return { answer, citations, model: ENGINE_ID };
  }

  forget({ target }) {
    if (target.ids !== undefined) {
      if (target.ids.length === 0) throw invalid('forget needs at least one id');
      let forgotten = 0;
      for (const id of target.ids) {
        if (this.byId.delete(id)) forgotten += 1;
      }
      this.entries = this.entries.filter((e) => this.byId.has(e.id));
      return { forgotten };
    }
    if (isEmptyFilter(target.filter)) {
      throw invalid('forget refuses an empty filter, which would mean everything');
    }
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => !matches(target.filter, e));
    this.byId = new Map(this.entries.map((e) => [e.id, e]));
    return { forgotten: before - this.entries.length };
  }

  explore({ req }) {
    if (!(req.limit >= 1 && req.limit <= MAX_BUCKETS)) throw invalid('explore limit must be between 1 and 500');
    const scanLimit = req.scan_limit === undefined ? 5000 : req.scan_limit;
    if (!(scanLimit >= 1 && scanLimit <= MAX_SCAN_LIMIT)) {
      throw invalid('explore scan_limit must be between 1 and 50000');
    }
    const admitted = this.admitted(req.filter);
    const scanned = admitted.slice(0, scanLimit);
    const counts = new Map();
    let missing = 0;
    for (const entry of scanned) {
      const values = facetValues(req.facet, entry);
      if (values.length === 0) missing += 1;
      for (const value of values) counts.set(value, (counts.get(value) || 0) + 1);
    }
    const buckets = [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || byCodePoint(a.value, b.value));
    return {
      facet: req.facet,
      buckets: buckets.slice(0, req.limit),
      total: scanned.length,
      missing,
      more_buckets: Math.max(0, buckets.length - req.limit),
      truncated: admitted.length > scanLimit,
    };
  }

  get({ req }) {
    if (req.ids.length < 1 || req.ids.length > MAX_GET_IDS) {
      throw invalid(`get takes between 1 and ${MAX_GET_IDS} ids`);
    }
    if (req.ids.some(isBlank)) throw invalid('an id must not be blank');
    const seen = new Set();
    const hits = [];
    for (const id of req.ids) {
      const entry = this.byId.get(id);
      if (!entry || seen.has(id)) continue;
      if (req.reach && !admits(req.reach, (entry.item.meta || {}).namespace)) continue;
      seen.add(id);
      hits.push(this.hit(entry, 0.0));
    }
    return hits;
  }
}

module.exports = { Engine, ENGINE_ID, byCodePoint };
