// One validating pass over an upstream's JSON completion, as bytes: it checks the whole text is
// well-formed JSON and finds what the relay needs — the top-level `model` value (to splice in the
// public id), that `choices` is an array in which a choice finished (a `finish_reason` string:
// else the completion was cut short), and `usage`'s token counts — without building the object
// or decoding the text; `usage.prompt_tokens_details.cached_tokens` too, when asked for (a price
// tells cached prompt tokens apart), else that object is walked past as any value. Anything it cannot vouch for simply (a key spelled with escapes, a repeated
// key it reads, nesting deeper than MAX_DEPTH) gets null, and the caller parses the text instead.

export interface CompletionFacts {
  /** Byte range of the top-level `model` value; -1 when there is none. */
  readonly modelStart: number;
  readonly modelEnd: number;
  /** Where the top-level object's closing brace is (to add `model` when there is none). */
  readonly closingBrace: number;
  /** `usage.prompt_tokens` and `usage.completion_tokens` when they are numbers. */
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  /** `usage.prompt_tokens_details.cached_tokens` when asked for and a number; else null. */
  readonly cachedTokens: number | null;
}

const MAX_DEPTH = 64;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

// Keys compared as bytes (all ASCII).
const MODEL = Buffer.from('model');
const CHOICES = Buffer.from('choices');
const FINISH_REASON = Buffer.from('finish_reason');
const USAGE = Buffer.from('usage');
const PROMPT_TOKENS = Buffer.from('prompt_tokens');
const COMPLETION_TOKENS = Buffer.from('completion_tokens');
const PROMPT_TOKENS_DETAILS = Buffer.from('prompt_tokens_details');
const CACHED_TOKENS = Buffer.from('cached_tokens');

class Invalid extends Error {}
const INVALID = new Invalid();
const NO_BYTES = new Uint8Array(0);
/** Up to this many digits an integer is exact when accumulated digit by digit (2^53 has 16). */
const MAX_EXACT_DIGITS = 15;

/** Reused: scanning is synchronous, and the facts it returns are itself, read before the next scan. */
class CompletionScanner implements CompletionFacts {
  bytes: Uint8Array = NO_BYTES;
  pos = 0;
  modelStart = -1;
  modelEnd = -1;
  closingBrace = -1;
  sawChoices = false;
  sawFinish = false;
  sawUsage = false;
  promptTokens: number | null = null;
  completionTokens: number | null = null;
  cachedTokens: number | null = null;
  wantCached = false;

  scan(bytes: Uint8Array, wantCached: boolean): CompletionFacts | null {
    this.bytes = bytes;
    this.wantCached = wantCached;
    this.cachedTokens = null;
    this.pos = 0;
    this.modelStart = -1;
    this.modelEnd = -1;
    this.sawChoices = false;
    this.sawFinish = false;
    this.sawUsage = false;
    this.promptTokens = null;
    this.completionTokens = null;
    try {
      this.space();
      if (bytes[this.pos] !== 0x7b) return null;
      this.closingBrace = this.topObject();
      this.space();
      return this.pos === bytes.length && this.sawChoices && this.sawFinish ? this : null;
    } catch (error) {
      if (error === INVALID) return null;
      throw error;
    } finally {
      this.bytes = NO_BYTES;
    }
  }

  /** The completion object; returns the offset of its closing brace. */
  topObject(): number {
    this.container(0x7d, this.topMember, 1);
    return this.pos - 1;
  }

  /** Walks the container whose opening byte is at pos, reading each member with `member`. */
  container(close: number, member: (depth: number) => void, depth: number): void {
    const bytes = this.bytes;
    this.pos++;
    this.space();
    if (bytes[this.pos] === close) {
      this.pos++;
      return;
    }
    for (;;) {
      member(depth);
      this.space();
      const next = bytes[this.pos++];
      if (next === close) return;
      if (next !== 0x2c) throw INVALID;
      this.space();
    }
  }

  /** A key and a colon, its text's span left in keyStart and keyEnd (a key spelled with escapes could be one read here: refused). */
  key(): void {
    this.keyStart = this.pos + 1;
    if (!this.string()) throw INVALID;
    this.keyEnd = this.pos - 1;
    this.colon();
  }

  keyStart = 0;
  keyEnd = 0;

  // The members' readers, made once (the scanner is reused).
  readonly topMember = (): void => {
    const bytes = this.bytes;
    this.key();
    if (this.keyIs(MODEL)) {
      if (this.modelStart !== -1 || bytes[this.pos] !== QUOTE) throw INVALID;
      this.modelStart = this.pos;
      this.string();
      this.modelEnd = this.pos;
    } else if (this.keyIs(CHOICES)) {
      if (this.sawChoices || bytes[this.pos] !== 0x5b) throw INVALID;
      this.sawChoices = true;
      this.container(0x5d, this.choiceElement, 1);
    } else if (this.keyIs(USAGE)) {
      if (this.sawUsage) throw INVALID;
      this.sawUsage = true;
      if (bytes[this.pos] === 0x7b) this.container(0x7d, this.usageMember, 2);
      else this.value(1);
    } else {
      this.value(1);
    }
  };

  readonly choiceElement = (depth: number): void => {
    if (this.bytes[this.pos] === 0x7b) this.container(0x7d, this.choiceMember, depth + 1);
    else this.value(depth + 1);
  };

  readonly choiceMember = (depth: number): void => {
    this.key();
    if (this.keyIs(FINISH_REASON) && this.bytes[this.pos] === QUOTE) this.sawFinish = true;
    this.value(depth + 1);
  };

  readonly usageMember = (): void => {
    this.key();
    if (this.wantCached && this.bytes[this.pos] === 0x7b && this.keyIs(PROMPT_TOKENS_DETAILS)) {
      this.container(0x7d, this.promptDetailsMember, 3);
      return;
    }
    const prompt = this.keyIs(PROMPT_TOKENS);
    const completion = this.keyIs(COMPLETION_TOKENS);
    if ((prompt && this.promptTokens !== null) || (completion && this.completionTokens !== null)) throw INVALID;
    const at = this.pos;
    const number = this.value(2);
    // A count sent as anything but a number is left to the parsing path to interpret.
    if ((prompt || completion) && !number) throw INVALID;
    if (prompt) this.promptTokens = this.numberAt(at);
    if (completion) this.completionTokens = this.numberAt(at);
  };

  readonly promptDetailsMember = (depth: number): void => {
    this.key();
    if (!this.keyIs(CACHED_TOKENS)) {
      this.value(depth + 1);
      return;
    }
    if (this.cachedTokens !== null) throw INVALID;
    const at = this.pos;
    // As for the counts above: anything but a number is left to the parsing path.
    if (!this.value(depth + 1)) throw INVALID;
    this.cachedTokens = this.numberAt(at);
  };

  readonly anyMember = (depth: number): void => {
    this.string();
    this.colon();
    this.value(depth + 1);
  };

  readonly anyElement = (depth: number): void => {
    this.value(depth + 1);
  };

  /** Any JSON value at `depth`; true when it was a number. */
  value(depth: number): boolean {
    if (depth > MAX_DEPTH) throw INVALID;
    const first = this.bytes[this.pos];
    if (first === QUOTE) {
      this.string();
      return false;
    }
    if (first === 0x7b) {
      this.container(0x7d, this.anyMember, depth);
      return false;
    }
    if (first === 0x5b) {
      this.container(0x5d, this.anyElement, depth);
      return false;
    }
    if (first === 0x74) return this.literal('true');
    if (first === 0x66) return this.literal('false');
    if (first === 0x6e) return this.literal('null');
    this.number();
    return true;
  }

  /** A string starting at pos (its opening quote); true when it holds no escape. */
  string(): boolean {
    const bytes = this.bytes;
    if (bytes[this.pos] !== QUOTE) throw INVALID;
    let plain = true;
    for (let pos = this.pos + 1; pos < bytes.length; pos++) {
      const byte = bytes[pos] as number;
      // Past the backslash: lower-case letters and every non-ASCII byte, most of a text (one test).
      if (byte > BACKSLASH) continue;
      if (byte === QUOTE) {
        this.pos = pos + 1;
        return plain;
      }
      if (byte < 0x20) throw INVALID;
      if (byte !== BACKSLASH) continue;
      plain = false;
      const escaped = bytes[++pos];
      if (escaped === 0x75) {
        for (const end = pos + 4; pos < end;) if (!isHex(bytes[++pos])) throw INVALID;
      } else if (escaped === undefined || !SIMPLE_ESCAPES.has(escaped)) {
        throw INVALID;
      }
    }
    throw INVALID;
  }

  number(): void {
    const bytes = this.bytes;
    let pos = this.pos;
    if (bytes[pos] === 0x2d) pos++;
    if (bytes[pos] === 0x30) pos++;
    else if (isDigit19(bytes[pos])) while (isDigit(bytes[++pos]));
    else throw INVALID;
    if (bytes[pos] === 0x2e) {
      if (!isDigit(bytes[++pos])) throw INVALID;
      while (isDigit(bytes[++pos]));
    }
    if (bytes[pos] === 0x65 || bytes[pos] === 0x45) {
      pos++;
      if (bytes[pos] === 0x2b || bytes[pos] === 0x2d) pos++;
      if (!isDigit(bytes[pos])) throw INVALID;
      while (isDigit(bytes[++pos]));
    }
    this.pos = pos;
  }

  /** The number token from `start` to pos: a short plain integer (a token count) read digit by digit, any other by Number(). */
  numberAt(start: number): number {
    const bytes = this.bytes;
    if (this.pos - start <= MAX_EXACT_DIGITS) {
      let value = 0;
      let pos = start;
      for (; pos < this.pos && isDigit(bytes[pos]); pos++) value = value * 10 + (bytes[pos] as number) - 0x30;
      if (pos === this.pos) return value;
    }
    let text = '';
    for (let pos = start; pos < this.pos; pos++) text += String.fromCharCode(bytes[pos] as number);
    return Number(text);
  }

  literal(word: string): false {
    const bytes = this.bytes;
    for (let index = 0; index < word.length; index++) if (bytes[this.pos + index] !== word.charCodeAt(index)) throw INVALID;
    this.pos += word.length;
    return false;
  }

  colon(): void {
    this.space();
    if (this.bytes[this.pos++] !== 0x3a) throw INVALID;
    this.space();
  }

  space(): void {
    const bytes = this.bytes;
    let byte = bytes[this.pos];
    while (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) byte = bytes[++this.pos];
  }

  /** The last key read is `key`. */
  keyIs(key: Uint8Array): boolean {
    const start = this.keyStart;
    if (this.keyEnd - start !== key.length) return false;
    for (let index = 0; index < key.length; index++) if (this.bytes[start + index] !== key[index]) return false;
    return true;
  }
}

const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

function isDigit19(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x31 && byte <= 0x39;
}

function isHex(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46));
}

const SCANNER = new CompletionScanner();

/**
 * What the relay needs from a JSON completion, or null: parse it instead (it may be invalid). Valid
 * until the next scan. `wantCached`: read the cached prompt tokens too.
 */
export function scanCompletion(bytes: Uint8Array, wantCached = false): CompletionFacts | null {
  return SCANNER.scan(bytes, wantCached);
}

// Public model ids come from the configuration: a bounded set, each quoted once.
const quotedModels = new Map<string, Buffer>();

/** The completion with its top-level `model` set to `model` (added when it had none). */
export function withModel(bytes: Buffer, facts: CompletionFacts, model: string): Buffer {
  let quoted = quotedModels.get(model);
  if (quoted === undefined) quotedModels.set(model, (quoted = Buffer.from(JSON.stringify(model))));
  if (facts.modelStart === -1) {
    const added = Buffer.from(`,"model":${quoted.toString()}`);
    return Buffer.concat([bytes.subarray(0, facts.closingBrace), added, bytes.subarray(facts.closingBrace)]);
  }
  // Copied by offsets: a subarray per part would be one more Buffer object each.
  const out = Buffer.allocUnsafe(bytes.length - (facts.modelEnd - facts.modelStart) + quoted.length);
  bytes.copy(out, 0, 0, facts.modelStart);
  quoted.copy(out, facts.modelStart);
  bytes.copy(out, facts.modelStart + quoted.length, facts.modelEnd);
  return out;
}
