// A renderer for the part of Helm's template language (Go text/template plus a few Sprig and Helm
// functions) that deploy/helm/munja uses, so that a test can render the chart where no helm
// binary exists. It is not Helm: it knows only what the chart's templates/_helpers.tpl lists —
// comments, `{{-`/`-}}` trimming, if / else if / else / end, define / include, pipelines with
// parenthesised arguments, `.` and `$` field chains, string, number and boolean literals, and the
// functions of helm-template-functions.ts. Anything else (range, with, variables, other functions)
// is an error, never a silent guess, so a template that strays from the subset fails the test.
// It follows Go's rules where the chart depends on them: truthiness (false, 0, "", nil and empty
// maps and lists are false), a field of a missing value is an error, a missing value prints as
// nothing, `and`/`or` return one of their arguments.
import { TEMPLATE_FUNCTIONS, TemplateFailure, truthy } from './helm-template-functions.ts';

type Term =
  | { readonly kind: 'field'; readonly root: boolean; readonly path: readonly string[] }
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'function'; readonly name: string }
  | { readonly kind: 'pipeline'; readonly pipeline: Pipeline };
type Command = readonly Term[];
type Pipeline = readonly Command[];

type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'output'; readonly pipeline: Pipeline }
  | { readonly kind: 'if'; readonly branches: readonly { readonly condition: Pipeline; readonly body: readonly Node[] }[]; readonly otherwise: readonly Node[] };

interface Action { readonly source: string; readonly at: string }
type Item = { readonly kind: 'text'; text: string } | { readonly kind: 'action'; readonly action: Action };

export { TemplateFailure };

/** Templates parsed together, as Helm does: a `define` in any file can be included from any other. */
export class TemplateSet {
  private readonly files = new Map<string, readonly Node[]>();
  private readonly defines = new Map<string, readonly Node[]>();

  add(name: string, source: string): void {
    const items = lex(name, source);
    const parser = new Parser(items, this.defines);
    this.files.set(name, parser.parseBody([]).nodes);
  }

  render(name: string, dot: unknown): string {
    const nodes = this.files.get(name);
    if (nodes === undefined) throw new Error(`no template ${name}`);
    return this.execute(nodes, { dot, root: dot });
  }

  private execute(nodes: readonly Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) {
      if (node.kind === 'text') out += node.text;
      else if (node.kind === 'output') out += printed(this.pipeline(node.pipeline, scope));
      else {
        const branch = node.branches.find((b) => truthy(this.pipeline(b.condition, scope)));
        out += this.execute(branch === undefined ? node.otherwise : branch.body, scope);
      }
    }
    return out;
  }

  private include = (name: unknown, dot: unknown): string => {
    const body = this.defines.get(String(name));
    if (body === undefined) throw new Error(`include: no template "${String(name)}"`);
    return this.execute(body, { dot, root: dot });
  };

  private pipeline(pipeline: Pipeline, scope: Scope): unknown {
    let piped: unknown[] = [];
    for (const command of pipeline) piped = [this.command(command, scope, piped)];
    return piped[0];
  }

  private command(command: Command, scope: Scope, piped: unknown[]): unknown {
    const [head, ...rest] = command;
    if (head === undefined) throw new Error('empty command');
    if (head.kind !== 'function') {
      if (rest.length > 0 || piped.length > 0) throw new Error('only a function takes arguments');
      return this.term(head, scope);
    }
    if (head.name === 'and' || head.name === 'or') return this.logical(head.name, [...rest], scope, piped);
    const args = [...rest.map((term) => this.term(term, scope)), ...piped];
    if (head.name === 'include') return this.include(args[0], args[1]);
    const fn = TEMPLATE_FUNCTIONS[head.name];
    if (fn === undefined) throw new Error(`function "${head.name}" is not in the supported subset`);
    return fn(...args);
  }

  /** Go's and/or: evaluate left to right, stop at the first false (and) or true (or) argument. */
  private logical(name: 'and' | 'or', terms: Term[], scope: Scope, piped: unknown[]): unknown {
    const values = [...terms.map((term) => () => this.term(term, scope)), ...piped.map((value) => () => value)];
    if (values.length < 2) throw new Error(`${name} needs two arguments or more`);
    let last: unknown;
    for (const value of values) {
      last = value();
      if (truthy(last) === (name === 'or')) return last;
    }
    return last;
  }

  private term(term: Term, scope: Scope): unknown {
    switch (term.kind) {
      case 'literal': return term.value;
      case 'pipeline': return this.pipeline(term.pipeline, scope);
      case 'function': return this.command([term], scope, []);
      case 'field': return field(term.root ? scope.root : scope.dot, term.path);
    }
  }
}

interface Scope { readonly dot: unknown; readonly root: unknown }

function field(start: unknown, path: readonly string[]): unknown {
  let value = start;
  for (const [i, key] of path.entries()) {
    if (value === null || value === undefined) throw new Error(`nil pointer evaluating .${path.slice(0, i + 1).join('.')}`);
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`can't evaluate field ${key} in a ${typeof value}`);
    value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** What an action prints: a missing value prints nothing (Helm drops Go's "<no value>"). */
function printed(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') throw new Error('an action printed a map or a list: pipe it to toYaml or toJson');
  return String(value);
}

/** Text and actions, with `{{-` and `-}}` trimming applied and comments dropped. */
function lex(file: string, source: string): Item[] {
  const items: Item[] = [];
  let at = 0;
  let trimNext = false;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    let text = source.slice(at, open === -1 ? source.length : open);
    if (trimNext) text = text.trimStart();
    if (open === -1) {
      items.push({ kind: 'text', text });
      break;
    }
    const trimLeft = /^\{\{-\s/.test(source.slice(open, open + 4));
    if (trimLeft) text = text.trimEnd();
    items.push({ kind: 'text', text });
    const start = open + (trimLeft ? 3 : 2);
    const close = actionEnd(source, start);
    const trimRight = /\s-$/.test(source.slice(start, close));
    const content = source.slice(start, trimRight ? close - 2 : close).trim();
    const line = source.slice(0, open).split('\n').length;
    if (!(content.startsWith('/*') && content.endsWith('*/'))) items.push({ kind: 'action', action: { source: content, at: `${file}:${line}` } });
    trimNext = trimRight;
    at = close + 2;
  }
  return items;
}

// Where an action ends (its closing braces): past any quoted string, and past the end of a comment.
function actionEnd(source: string, from: number): number {
  if (source.slice(from).trimStart().startsWith('/*')) {
    const close = source.indexOf('*/', from);
    if (close === -1) throw new Error('unclosed comment');
    return source.indexOf('}}', close);
  }
  let quote: string | null = null;
  for (let i = from; i < source.length; i++) {
    const ch = source[i]!;
    if (quote !== null) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === '`') quote = ch;
    else if (source.startsWith('}}', i)) return i;
  }
  throw new Error('unclosed action');
}

class Parser {
  private index = 0;
  private readonly items: readonly Item[];
  private readonly defines: Map<string, readonly Node[]>;

  constructor(items: readonly Item[], defines: Map<string, readonly Node[]>) {
    this.items = items;
    this.defines = defines;
  }

  /** Nodes up to the first action whose keyword is one of `stops` (`end`, `else`), returned beside them. */
  parseBody(stops: readonly string[]): { nodes: Node[]; stop: Action | null } {
    const nodes: Node[] = [];
    while (this.index < this.items.length) {
      const item = this.items[this.index++]!;
      if (item.kind === 'text') {
        if (item.text !== '') nodes.push(item);
        continue;
      }
      const { source, at } = item.action;
      const keyword = /^(\w+)\b/.exec(source)?.[1];
      if (keyword !== undefined && stops.includes(keyword)) return { nodes, stop: item.action };
      try {
        if (keyword === 'if') nodes.push(this.parseIf(source.slice(2)));
        else if (keyword === 'define') this.parseDefine(source.slice(6));
        else if (keyword !== undefined && ['end', 'else', 'range', 'with', 'block', 'template'].includes(keyword)) throw new Error(`"${keyword}" is not in the supported subset here`);
        else nodes.push({ kind: 'output', pipeline: parsePipeline(source) });
      } catch (error) {
        throw error instanceof TemplateFailure || (error as Error).message.startsWith(`${at}:`) ? error : new Error(`${at}: ${(error as Error).message}`, { cause: error });
      }
    }
    if (stops.length > 0) throw new Error(`missing {{ end }}`);
    return { nodes, stop: null };
  }

  private parseIf(condition: string): Node {
    const branches = [];
    let otherwise: Node[] = [];
    let next: string | null = condition;
    while (next !== null) {
      const { nodes, stop } = this.parseBody(['else', 'end']);
      branches.push({ condition: parsePipeline(next), body: nodes });
      next = null;
      const rest = stop!.source.replace(/^else\b\s*/, '');
      if (stop!.source.startsWith('else') && rest.startsWith('if ')) next = rest.slice(3);
      else if (stop!.source.startsWith('else')) {
        const tail = this.parseBody(['end']);
        otherwise = tail.nodes;
      }
    }
    return { kind: 'if', branches, otherwise };
  }

  private parseDefine(rest: string): void {
    const name = /^\s*"([^"]+)"\s*$/.exec(rest)?.[1];
    if (name === undefined) throw new Error('define takes one quoted name');
    this.defines.set(name, this.parseBody(['end']).nodes);
  }
}

const TOKEN = /\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|(\()|(\))|(\|)|(-?\d+(?:\.\d+)?)(?![\w.])|(\$?(?:\.[A-Za-z_]\w*)+|\.|\$)|([A-Za-z_]\w*))/y;

function parsePipeline(source: string): Pipeline {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    if (source.slice(TOKEN.lastIndex).trim() === '') break;
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(source);
    if (match === null) throw new Error(`cannot read "${source.slice(start)}"`);
    tokens.push(match[0].trim());
  }
  const at = { index: 0 };
  const pipeline = readPipeline(tokens, at);
  if (at.index !== tokens.length) throw new Error(`unexpected "${tokens[at.index]}"`);
  return pipeline;
}

function readPipeline(tokens: readonly string[], at: { index: number }): Pipeline {
  const commands: Term[][] = [[]];
  while (at.index < tokens.length && tokens[at.index] !== ')') {
    const token = tokens[at.index++]!;
    if (token === '|') commands.push([]);
    else if (token === '(') {
      commands.at(-1)!.push({ kind: 'pipeline', pipeline: readPipeline(tokens, at) });
      if (tokens[at.index++] !== ')') throw new Error('missing )');
    } else commands.at(-1)!.push(readTerm(token));
  }
  if (commands.some((command) => command.length === 0)) throw new Error('empty command in a pipeline');
  return commands;
}

function readTerm(token: string): Term {
  if (token.startsWith('"')) return { kind: 'literal', value: JSON.parse(token) };
  if (token.startsWith('`')) return { kind: 'literal', value: token.slice(1, -1) };
  if (/^-?\d/.test(token)) return { kind: 'literal', value: Number(token) };
  if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' };
  if (token === 'nil') return { kind: 'literal', value: null };
  if (token === '.' || token === '$') return { kind: 'field', root: token === '$', path: [] };
  if (token.startsWith('.') || token.startsWith('$.')) {
    return { kind: 'field', root: token.startsWith('$'), path: token.replace(/^\$/, '').slice(1).split('.') };
  }
  return { kind: 'function', name: token };
}
