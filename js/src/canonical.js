// The canonical JSON text that a model file's checksum covers, computed from the file's
// text exactly as Python computes it: json.loads, then json.dumps(sort_keys=True,
// separators=(",", ":"), ensure_ascii=True). The text is re-read token by token, so an
// integer stays an integer and a float a float (JavaScript numbers cannot tell 1 from 1.0),
// floats are written the way Python's repr writes them, and keys are sorted by code point.

/** A JSON text that cannot be read; `offset` is the position of the fault. */
export class JsonSyntaxError extends SyntaxError {
  constructor(message, offset) {
    super(`${message} at character ${offset}`);
    this.offset = offset;
  }
}

const WHITESPACE = /[ \t\n\r]*/y;
const SURROGATE = /[\uD800-\uDFFF]/;
const WORDS = ["true", "false", "null"];

/**
 * Python's `repr` of a finite double: the shortest digits that read back to it, written
 * positionally when the decimal exponent is in -4..15, else as `d.ddde+XX`.
 * @param {number} x
 * @returns {string}
 */
export function pythonFloatRepr(x) {
  if (!Number.isFinite(x)) throw new RangeError(`out of range float value ${x}`);
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, exp] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const decpt = Number(exp) + 1; // value = 0.DIGITS * 10**decpt
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const mag = String(Math.abs(e)).padStart(2, "0");
    return `${sign}${body}e${e < 0 ? "-" : "+"}${mag}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/**
 * A string as Python's json.dumps writes it with ensure_ascii: quotes, backslashes and
 * the usual control characters escaped by name, every other character outside space..~
 * as \uXXXX (lower-case hex, UTF-16 code units).
 * @param {string} s
 * @returns {string}
 */
export function pythonJsonString(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c >= 0x20 && c <= 0x7e) out += s[i];
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else out += `\\u${c.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/** Compare two strings by Unicode code point (Python's order), not UTF-16 code unit. */
export function compareCodePoints(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The canonical JSON text of the JSON document `text`, leaving out the top-level key
 * `omit` (if given): the bytes whose SHA-256 a model file carries.
 * @param {string} text
 * @param {string} [omit]
 * @returns {string}
 */
export function canonicalJson(text, omit) {
  let pos = 0;

  const skip = () => {
    if (text.charCodeAt(pos) > 0x20) return;
    WHITESPACE.lastIndex = pos;
    WHITESPACE.exec(text);
    pos = WHITESPACE.lastIndex;
  };
  const fail = (what) => {
    throw new JsonSyntaxError(what, pos);
  };

  const readString = () => {
    // pos is on the opening quote; returns the decoded string
    pos++;
    let out = "";
    for (;;) {
      if (pos >= text.length) fail("unterminated string");
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        return out;
      }
      if (c < 0x20) fail("control character in string");
      if (c !== 0x5c) {
        const start = pos;
        while (pos < text.length) {
          const d = text.charCodeAt(pos);
          if (d === 0x22 || d === 0x5c || d < 0x20) break;
          pos++;
        }
        out += text.slice(start, pos);
        continue;
      }
      const e = text[pos + 1];
      const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e in simple) {
        out += simple[e];
        pos += 2;
      } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
        out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
        pos += 6;
      } else {
        fail("invalid escape in string");
      }
    }
  };

  const readValue = (depth) => {
    skip();
    const c = text[pos];
    if (c === "{") {
      pos++;
      const entries = new Map();
      skip();
      if (text[pos] === "}") {
        pos++;
        return "{}";
      }
      for (;;) {
        skip();
        if (text[pos] !== '"') fail("expected a key");
        const key = readString();
        skip();
        if (text[pos] !== ":") fail("expected ':'");
        pos++;
        const value = readValue(depth + 1);
        entries.delete(key); // a repeated key keeps its last value, as in Python
        entries.set(key, value);
        skip();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "}") {
          pos++;
          break;
        }
        fail("expected ',' or '}'");
      }
      if (depth === 0 && omit !== undefined) entries.delete(omit);
      const keys = [...entries.keys()];
      // UTF-16 order is code point order unless a key holds a surrogate
      keys.sort(keys.some((k) => SURROGATE.test(k)) ? compareCodePoints : undefined);
      return `{${keys.map((k) => `${pythonJsonString(k)}:${entries.get(k)}`).join(",")}}`;
    }
    if (c === "[") {
      pos++;
      const items = [];
      skip();
      if (text[pos] === "]") {
        pos++;
        return "[]";
      }
      for (;;) {
        items.push(readValue(depth + 1));
        skip();
        if (text[pos] === ",") {
          pos++;
          continue;
        }
        if (text[pos] === "]") {
          pos++;
          break;
        }
        fail("expected ',' or ']'");
      }
      return `[${items.join(",")}]`;
    }
    if (c === '"') return pythonJsonString(readString());
    if (c === "-" || (c >= "0" && c <= "9")) return readNumber();
    for (const word of WORDS) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return word;
      }
    }
    return fail("expected a value");
  };

  const digits = () => {
    const start = pos;
    while (pos < text.length && text.charCodeAt(pos) >= 0x30 && text.charCodeAt(pos) <= 0x39) pos++;
    return pos - start;
  };

  // a number token (JSON grammar); an integer keeps its digits, a float is re-written
  const readNumber = () => {
    const start = pos;
    if (text[pos] === "-") pos++;
    const first = pos;
    const whole = digits();
    if (whole === 0 || (whole > 1 && text[first] === "0")) fail("expected a value");
    let isFloat = false;
    let hasExp = false;
    if (text[pos] === ".") {
      pos++;
      if (digits() === 0) fail("expected digits after '.'");
      isFloat = true;
    }
    if (text[pos] === "e" || text[pos] === "E") {
      pos++;
      if (text[pos] === "+" || text[pos] === "-") pos++;
      if (digits() === 0) fail("expected digits in the exponent");
      isFloat = hasExp = true;
    }
    const lexeme = text.slice(start, pos);
    if (!isFloat) return lexeme === "-0" ? "0" : lexeme; // Python keeps every digit
    const x = Number(lexeme);
    if (!Number.isFinite(x)) fail("out of range float value");
    // fast path: a positional lexeme that JavaScript writes back the same is already the
    // shortest round-trip form, which is Python's repr in this range
    if (!hasExp && Math.abs(x) >= 1e-4 && Math.abs(x) < 1e16 && String(x) === lexeme) return lexeme;
    return pythonFloatRepr(x);
  };

  const result = readValue(0);
  skip();
  if (pos !== text.length) fail("extra data after the document");
  return result;
}
