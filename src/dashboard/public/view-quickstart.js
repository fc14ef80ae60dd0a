// Quickstart: the base URL and copyable snippets for curl and the openai SDKs.
import { h } from './dom.js';
import { alertBox, codeBlock } from './widgets.js';

export function renderQuickstart() {
  const baseUrl = `${location.origin}/v1`;
  const exportKey = 'export MUNJA_KEY="sk_munja_…"   # the key you created on the Keys page';
  const curl = `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $MUNJA_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "auto", "messages": [{"role": "user", "content": "Hello!"}]}'`;
  const node = `import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: '${baseUrl}',
  apiKey: process.env.MUNJA_KEY,
});

const completion = await client.chat.completions.create({
  model: 'auto',
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(completion.choices[0].message.content);`;
  const python = `import os
from openai import OpenAI

client = OpenAI(base_url="${baseUrl}", api_key=os.environ["MUNJA_KEY"])

completion = client.chat.completions.create(
    model="auto",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(completion.choices[0].message.content)`;

  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'Quickstart'),
      h('p', { class: 'muted' }, 'Munja speaks the OpenAI Chat Completions API: point any OpenAI client at this base URL.')),
    alertBox('warning', h('strong', null, 'Keys belong in server-side code only. '),
      'Never put them in browser or mobile client code, where anyone can read them. Load them from an environment variable or a secret store.'),
    h('section', { class: 'card' }, h('h2', null, 'Base URL'), codeBlock(baseUrl, 'Copy the base URL')),
    h('section', { class: 'card' }, h('h2', null, '1. Put your key in the environment'), codeBlock(exportKey, 'Copy the export line')),
    h('section', { class: 'card' }, h('h2', null, '2. Call the API'),
      h('h3', null, 'curl'), codeBlock(curl, 'Copy the curl example'),
      h('h3', null, 'JavaScript / TypeScript (', h('code', null, 'npm install openai'), ')'), codeBlock(node, 'Copy the JavaScript example'),
      h('h3', null, 'Python (', h('code', null, 'pip install openai'), ')'), codeBlock(python, 'Copy the Python example')),
    h('p', { class: 'muted' }, 'Models: ', h('code', null, 'auto'), ' is the recommended start; ',
      h('code', null, 'GET /v1/models'), ' lists them all. Streaming works with ', h('code', null, 'stream: true'), '.'));
}
