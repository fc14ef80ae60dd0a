// The chart's template renderer gives what Helm gives for the constructs it supports, and refuses
// what it does not support rather than guessing. Expected outputs are Go text/template's and
// Sprig's documented results.
import { describe, expect, it } from 'vitest';
import { TemplateFailure, TemplateSet } from '../../helpers/helm-template.ts';

function render(source: string, dot: unknown = {}, helpers = ''): string {
  const set = new TemplateSet();
  set.add('_helpers.tpl', helpers);
  set.add('t.yaml', source);
  return set.render('t.yaml', dot);
}

describe('text and actions', () => {
  it('trims whitespace on the side of a dash, and only there', () => {
    expect(render('a  {{- "b" -}}  c')).toBe('abc');
    expect(render('a  {{ "b" }}  c')).toBe('a  b  c');
    expect(render('a\n  {{- "b" }}\n')).toBe('ab\n');
  });

  it('drops comments, trimming around them too', () => {
    expect(render('a\n{{- /* a "comment" with }} */ -}}\nb')).toBe('ab');
    expect(render('{{/* x */}}y')).toBe('y');
  });

  it('prints a missing value as nothing, and fails on a field of one', () => {
    expect(render('[{{ .Values.missing }}]', { Values: {} })).toBe('[]');
    expect(() => render('{{ .Values.missing.deeper }}', { Values: {} })).toThrow(/nil pointer/);
  });

  it('reaches the root through $ inside an include, where . is the argument', () => {
    const helpers = '{{- define "pair" -}}{{ .a }}/{{ $.a }}{{- end -}}';
    expect(render('{{ include "pair" .Values }}', { Values: { a: 1 } }, helpers)).toBe('1/1');
  });
});

describe('if', () => {
  it('follows Go\'s truth: empty map, empty list, 0, "" and false are false', () => {
    for (const value of [{}, [], 0, '', false, null]) expect(render('{{ if .v }}yes{{ else }}no{{ end }}', { v: value })).toBe('no');
    for (const value of [{ a: 1 }, [0], 1, '0', true]) expect(render('{{ if .v }}yes{{ else }}no{{ end }}', { v: value })).toBe('yes');
  });

  it('takes the first true branch of else if', () => {
    const source = '{{ if .a }}a{{ else if .b }}b{{ else if .c }}c{{ else }}none{{ end }}';
    expect(render(source, { b: 1, c: 1 })).toBe('b');
    expect(render(source, { c: 1 })).toBe('c');
    expect(render(source, {})).toBe('none');
  });

  it('nests', () => {
    expect(render('{{ if .a }}{{ if .b }}ab{{ else }}a{{ end }}!{{ end }}', { a: 1 })).toBe('a!');
  });
});

describe('pipelines and functions', () => {
  it('passes the piped value as the last argument, and evaluates parentheses first', () => {
    expect(render('{{ "abcdef-" | trunc 4 | printf "%s!" }}')).toBe('abcd!');
    expect(render('{{ default (printf "%s-%s" "a" "b") .x }}', { x: '' })).toBe('a-b');
    expect(render('{{ "name-" | trimSuffix "-" }}')).toBe('name');
  });

  it('and / or return an argument, not a boolean', () => {
    expect(render('{{ or "" "d" }}')).toBe('d');
    expect(render('{{ and 1 0 }}')).toBe('0');
    expect(render('{{ and .x .x.y }}', {})).toBe('');
  });

  it('quote, int and the comparisons', () => {
    expect(render('{{ 8080 | quote }}')).toBe('"8080"');
    expect(render('{{ gt (int "3") 1 }} {{ eq "a" "a" }} {{ ne 1 1 }} {{ not "" }}')).toBe('true true false true');
    expect(() => render('{{ gt "3" 1 }}')).toThrow(/incompatible types/);
  });

  it('toYaml and toJson sort map keys; nindent starts a new line', () => {
    const dot = { v: { b: 1, a: { d: [1], c: 'x' } } };
    expect(render('{{ toYaml .v }}', dot)).toBe('a:\n  c: x\n  d:\n  - 1\nb: 1');
    expect(render('{{ .v | toJson }}', dot)).toBe('{"a":{"c":"x","d":[1]},"b":1}');
    expect(render('k:{{ "a: 1\\nb: 2" | nindent 2 }}')).toBe('k:\n  a: 1\n  b: 2');
  });

  it('sha256sum is the hex digest', () => {
    expect(render('{{ "abc" | sha256sum }}')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('fail stops the render with its message', () => {
    expect(() => render('{{ if .bad }}{{ fail "no good" }}{{ end }}', { bad: true })).toThrow(new TemplateFailure('no good'));
    expect(render('{{ if .bad }}{{ fail "no good" }}{{ end }}ok', { bad: false })).toBe('ok');
  });
});

describe('outside the subset', () => {
  it.each([
    ['range', '{{ range .x }}{{ end }}'],
    ['with', '{{ with .x }}{{ end }}'],
    ['a variable', '{{ $x := 1 }}'],
    ['an unknown function', '{{ upper "a" }}'],
    ['an unclosed if', '{{ if .x }}a'],
    ['printing a map', '{{ .v }}'],
  ])('%s is an error', (_, source) => {
    expect(() => render(source, { v: { a: 1 } })).toThrow();
  });
});
