'use strict';
// The provider profile (contract A1–A4), in memory: entries keyed by (namespace, key),
// the three mandatory families and nothing else.

const { ContractError } = require('./protocol');
const { byCodePoint } = require('./engine');

const DRIVER_ID = 'node-memory';
const GLOBAL_NAMESPACE = 'global';
const MANDATORY = ['core', 'recall', 'portability'];
const EXPORT_PAGE_MAX = 64;
const SCOPE_UNAPPLIED =
  "source scope is not applied by this driver's recall path yet: the scope predicate " +
  'belongs inside the query and lands with the tree capability family';

const invalid = (message) => new ContractError('ai.tinyhumans.tinymemory.Error.Invalid', message);
const codePoints = (text) => [...text].length;

class Provider {
  constructor() {
    this.rows = new Map(); // JSON [namespace, key] -> entry
  }

  driverId() {
    return DRIVER_ID;
  }

  capabilities() {
    return MANDATORY;
  }

  health() {
    return { status: 'ready' };
  }

  shutdown() {
    return null;
  }

  provides({ capability }) {
    return MANDATORY.includes(capability);
  }

  as_documents() {
    return false;
  }

  // Every entry, in (namespace, key) order by code point.
  sorted() {
    return [...this.rows.values()].sort(
      (a, b) => byCodePoint(a.namespace, b.namespace) || byCodePoint(a.key, b.key),
    );
  }

  store({ namespace, key, content, category, session_id, taint }) {
    // The taint is kept exactly as given: a driver never assigns or upgrades it.
    this.rows.set(JSON.stringify([namespace, key]), {
      id: `${namespace}::${key}`,
      key,
      content,
      namespace,
      category,
      timestamp: new Date().toISOString(),
      session_id,
      score: null,
      taint,
    });
    return null;
  }

  get({ namespace, key }) {
    return this.rows.get(JSON.stringify([namespace, key])) || null;
  }

  forget({ namespace, key }) {
    return this.rows.delete(JSON.stringify([namespace, key]));
  }

  list({ namespace, category, session_id }) {
    // No namespace lists every namespace (decisions §4.1).
    return this.sorted().filter(
      (e) =>
        (namespace === null || e.namespace === namespace) &&
        (category === null || e.category === category) &&
        (session_id === null || e.session_id === session_id),
    );
  }

  namespaces() {
    const counts = new Map();
    for (const entry of this.rows.values()) counts.set(entry.namespace, (counts.get(entry.namespace) || 0) + 1);
    return [...counts]
      .sort((a, b) => byCodePoint(a[0], b[0]))
      .map(([namespace, count]) => ({ namespace, count }));
  }

  // The whole query as a case-insensitive substring; score = its share of the content.
  recall({ query, limit, opts, scope }) {
    if (scope !== null) throw invalid(SCOPE_UNAPPLIED); // rows carry no source to scope by
    if (limit < 0) throw invalid('recall limit must not be negative');
    const minScore = opts.min_score;
    if (minScore !== undefined && typeof minScore !== 'number') {
      throw invalid('recall min_score must be a number, not NaN');
    }
    const needle = query.toLowerCase();
    if (needle.trim() === '' || limit === 0) return [];
    const namespace = opts.namespace === undefined ? GLOBAL_NAMESPACE : opts.namespace;
    const hits = [];
    for (const entry of this.sorted()) {
      if (entry.namespace !== namespace) continue;
      if (opts.category !== undefined && entry.category !== opts.category) continue;
      if (opts.session_id !== undefined && entry.session_id !== opts.session_id) continue;
      const haystack = entry.content.toLowerCase();
      if (!haystack.includes(needle)) continue;
      const score = codePoints(needle) / codePoints(haystack);
      if (minScore !== undefined && score < minScore) continue;
      hits.push({ ...entry, score });
    }
    hits.sort((a, b) => b.score - a.score); // stable: ties keep (namespace, key) order
    return hits.slice(0, limit);
  }

  export_page({ cursor, limit }) {
    if (limit < 1) throw invalid('export page limit must be greater than zero');
    const rows = this.sorted();
    let start = 0;
    if (cursor !== null) {
      // An offset: one past the end of a store that shrank since it was issued answers
      // an empty last page; anything but an offset was never issued.
      if (!/^(0|[1-9][0-9]{0,15})$/.test(cursor)) {
        throw invalid(`unknown export cursor: ${cursor}`);
      }
      start = Number(cursor);
    }
    const end = Math.min(start + Math.min(limit, EXPORT_PAGE_MAX), rows.length);
    const records = rows.slice(start, end).map((e) => ({
      kind: 'entry',
      id: e.id,
      namespace: e.namespace,
      taint: e.taint,
      payload: { key: e.key, content: e.content, category: e.category, session_id: e.session_id, timestamp: e.timestamp },
    }));
    return end < rows.length ? { records, next_cursor: String(end) } : { records, next_cursor: null };
  }

  import_records({ records }) {
    const accepted = [];
    const errors = [];
    for (const record of records) {
      const payload = record.payload && typeof record.payload === 'object' ? record.payload : {};
      if (record.kind !== 'entry') {
        errors.push(`record ${record.id} has kind "${record.kind}", not "entry"`);
      } else if (typeof record.namespace !== 'string' || typeof payload.key !== 'string') {
        errors.push(`record ${record.id} lacks a namespace or key`);
      } else {
        accepted.push({
          namespace: record.namespace,
          key: payload.key,
          content: typeof payload.content === 'string' ? payload.content : '',
          category: typeof payload.category === 'string' && payload.category !== '' ? payload.category : 'core',
          session_id: typeof payload.session_id === 'string' ? payload.session_id : null,
          taint: record.taint === undefined ? 'internal' : record.taint,
        });
      }
    }
    for (const row of accepted) this.store(row);
    return { imported: accepted.length, skipped: 0, failed: errors.length, errors };
  }
}

module.exports = { Provider, DRIVER_ID };
