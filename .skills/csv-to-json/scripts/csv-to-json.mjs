#!/usr/bin/env node
// Converts CSV/TSV to a JSON array of records (RFC 4180 quoting). No dependencies, so it runs wherever Node does.
// Usage: node csv-to-json.mjs [--delimiter C] [--no-types] [--no-header] [FILE]   (reads stdin without FILE)
import fs from 'node:fs';

function parseArgs(argv) {
  const opts = { delimiter: null, types: true, header: true, file: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--delimiter' || arg === '-d') {
      const value = argv[++i];
      opts.delimiter = value === '\\t' || value === 'tab' ? '\t' : value;
      if (!opts.delimiter || opts.delimiter.length !== 1) throw new Error('--delimiter needs one character');
    } else if (arg === '--no-types') opts.types = false;
    else if (arg === '--no-header') opts.header = false;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write('usage: csv-to-json.mjs [--delimiter C] [--no-types] [--no-header] [FILE]\n');
      process.exit(0);
    } else if (arg.startsWith('-') && arg !== '-') throw new Error(`unknown option: ${arg}`);
    else opts.file = arg;
  }
  return opts;
}

/** Picks the delimiter from the first line outside quotes: tab, then `;` when it outnumbers `,`. */
function detectDelimiter(text) {
  let inQuotes = false;
  const counts = { ',': 0, ';': 0, '\t': 0 };
  for (const ch of text) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (ch === '\n' || ch === '\r')) break;
    else if (!inQuotes && ch in counts) counts[ch]++;
  }
  if (counts['\t'] > 0) return '\t';
  return counts[';'] > counts[','] ? ';' : ',';
}

/** Returns records as { fields, line } so problems can be reported with the line they start on. */
function parseRecords(text, delimiter, warnings) {
  const records = [];
  let fields = [];
  let field = '';
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;
  const endRecord = () => {
    fields.push(field);
    // A blank line parses as one empty field: skip it rather than emit an all-null record.
    if (!(fields.length === 1 && fields[0] === '')) records.push({ fields, line: recordLine });
    fields = [];
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') inQuotes = true;
    else if (ch === '"') {
      warnings.push(`line ${line}: quote inside an unquoted field, kept literally`);
      field += ch;
    } else if (ch === delimiter) {
      fields.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      // CRLF: let the \n end the record so no \r sticks to the last field.
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      line++;
      recordLine = line;
    } else field += ch;
  }
  if (inQuotes) warnings.push(`line ${recordLine}: unterminated quoted field`);
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}

function uniqueHeaders(names) {
  const seen = new Map();
  return names.map((raw, index) => {
    const base = raw.trim() || `column_${index + 1}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  });
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;
const BOOLEAN = /^(true|false)$/i;

/** A column is typed only when every non-empty cell agrees, so one key never mixes numbers and strings. */
function columnType(values) {
  const present = values.filter((v) => v !== '' && v !== undefined);
  if (present.length === 0) return 'string';
  const isNumber = (v) => NUMBER.test(v) && (v.includes('.') || v.includes('e') || v.includes('E') || Number.isSafeInteger(Number(v)));
  if (present.every(isNumber)) return 'number';
  if (present.every((v) => BOOLEAN.test(v))) return 'boolean';
  return 'string';
}

function convert(value, type, types) {
  if (value === undefined) return null;
  if (!types) return value;
  if (value === '') return null;
  if (type === 'number') return Number(value);
  if (type === 'boolean') return value.toLowerCase() === 'true';
  return value;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  let text = fs.readFileSync(opts.file && opts.file !== '-' ? opts.file : 0, 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const delimiter = opts.delimiter ?? detectDelimiter(text);
  const warnings = [];
  const records = parseRecords(text, delimiter, warnings);
  if (records.length === 0) {
    process.stdout.write('[]\n');
    return;
  }
  const width = opts.header ? records[0].fields.length : Math.max(...records.map((r) => r.fields.length));
  const headers = opts.header
    ? uniqueHeaders(records[0].fields)
    : Array.from({ length: width }, (_, i) => `column_${i + 1}`);
  const rows = opts.header ? records.slice(1) : records;
  for (const row of rows) {
    if (row.fields.length !== width) {
      warnings.push(`line ${row.line}: ${row.fields.length} fields, header has ${width}`);
    }
  }
  const types = headers.map((_, c) => columnType(rows.map((r) => r.fields[c])));
  const out = rows.map((row) => {
    const record = {};
    headers.forEach((h, c) => {
      record[h] = convert(row.fields[c], types[c], opts.types);
    });
    if (row.fields.length > width) record._extra = row.fields.slice(width);
    return record;
  });
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`csv-to-json: ${error.message}\n`);
  process.exit(1);
}
