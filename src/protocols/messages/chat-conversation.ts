// The Messages conversation (system, then messages of blocks) as chat messages, with Anthropic's
// rules between them checked in its own terms: each tool_use is answered by a tool_result in the
// next message, a system message holds text, images go to models that take them. Thinking blocks
// are dropped: a chat model neither reads nor signs them.
import { ApiError } from '../../errors/api-error.ts';
import type { ContentBlock, ImageBlock, MessagesBody, TextBlock, ToolResultBlock } from './messages-request.ts';

/** Text blocks become one string, a line apart. */
const BLOCK_SEPARATOR = '\n';
const MAX_LISTED_IDS = 3;
const MAX_SHOWN_ID_CHARS = 64;

type ChatMessage = Record<string, unknown>;
type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatConversation {
  readonly messages: ChatMessage[];
  /** Deferred tools that a tool_result loaded (tool_reference blocks): they join the offer. */
  readonly referencedTools: ReadonlySet<string>;
}

export function chatConversation(body: MessagesBody, takesImages: boolean): ChatConversation {
  const conversation = new Conversation(takesImages);
  const { system } = body;
  if (system !== undefined) {
    const text = typeof system === 'string' ? system : joinText(system);
    if (text !== '') conversation.messages.push({ role: 'system', content: text });
  }
  const last = body.messages.length - 1;
  for (let index = 0; index <= last; index++) {
    const { role, content } = body.messages[index]!;
    const at = `messages.${index}`;
    if (role === 'user') {
      conversation.user(content, at);
      continue;
    }
    conversation.checkAnswered();
    if (role === 'system') {
      conversation.messages.push({ role: 'system', content: systemText(content, at) });
    } else {
      if (index === last) {
        throw new ApiError('invalid_value', {
          param: at,
          message: `${at}: the conversation ends with an assistant message (a prefilled reply); models here start a new reply rather than continue one.`,
        });
      }
      conversation.assistant(content, at);
    }
  }
  return conversation;
}

class Conversation implements ChatConversation {
  readonly messages: ChatMessage[] = [];
  readonly referencedTools = new Set<string>();
  readonly #takesImages: boolean;
  readonly #toolUseIds = new Set<string>();
  /** The tool_use ids of the last assistant message still without a tool_result, and where it was. */
  #unanswered: Set<string> | null = null;
  #unansweredAt = '';

  constructor(takesImages: boolean) {
    this.#takesImages = takesImages;
  }

  assistant(content: string | readonly ContentBlock[], at: string): void {
    if (typeof content === 'string') {
      this.messages.push({ role: 'assistant', content });
      return;
    }
    let text: string | null = null;
    const calls: ChatMessage[] = [];
    for (let index = 0; index < content.length; index++) {
      const block = content[index]!;
      switch (block.type) {
        case 'text':
          text = text === null ? block.text : text + BLOCK_SEPARATOR + block.text;
          break;
        case 'tool_use':
          if (this.#toolUseIds.has(block.id)) throw invalid(`${at}.content.${index}.id`, 'each tool_use block needs an id of its own.');
          this.#toolUseIds.add(block.id);
          calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
          break;
        case 'thinking':
        case 'redacted_thinking':
          break;
        default:
          throw invalid(`${at}.content.${index}`, `${block.type} blocks belong to user messages.`);
      }
    }
    if (calls.length === 0) {
      // Only thinking: nothing a chat model would read.
      if (text !== null) this.messages.push({ role: 'assistant', content: text });
      return;
    }
    this.messages.push({ role: 'assistant', content: text, tool_calls: calls });
    this.#unanswered = new Set(calls.map((call) => call.id as string));
    this.#unansweredAt = at;
  }

  user(content: string | readonly ContentBlock[], at: string): void {
    if (typeof content === 'string') {
      this.checkAnswered();
      this.messages.push({ role: 'user', content });
      return;
    }
    const parts: ChatPart[] = [];
    let hasImage = false;
    // Chat tool messages must follow the assistant's calls: the results go first, whatever their place.
    for (let index = 0; index < content.length; index++) {
      const block = content[index]!;
      const where = `${at}.content.${index}`;
      switch (block.type) {
        case 'tool_result':
          this.messages.push({ role: 'tool', tool_call_id: this.#answer(block.tool_use_id, `${where}.tool_use_id`), content: this.#resultText(block, where) });
          break;
        case 'text':
          parts.push({ type: 'text', text: block.text });
          break;
        case 'image':
          parts.push(this.#image(block, where));
          hasImage = true;
          break;
        case 'document':
          throw new ApiError('invalid_content', { param: where, message: `${where}: document blocks are not supported; models here read text${this.#takesImages ? ' and images' : ''}.` });
        default:
          throw invalid(where, `${block.type} blocks belong to assistant messages.`);
      }
    }
    this.checkAnswered();
    if (parts.length === 0) return;
    if (hasImage) this.messages.push({ role: 'user', content: parts });
    else this.messages.push({ role: 'user', content: joinText(parts as readonly TextBlock[]) });
  }

  /** Anthropic's rule: the message after tool_use blocks answers every one of them. */
  checkAnswered(): void {
    const unanswered = this.#unanswered;
    if (unanswered === null) return;
    this.#unanswered = null;
    if (unanswered.size === 0) return;
    const ids = [...unanswered].slice(0, MAX_LISTED_IDS).map((id) => (id.length > MAX_SHOWN_ID_CHARS ? `${id.slice(0, MAX_SHOWN_ID_CHARS)}…` : id));
    const at = this.#unansweredAt;
    throw invalid(at, `tool_use ids were found without tool_result blocks in the message after it: ${ids.join(', ')}${unanswered.size > MAX_LISTED_IDS ? ', …' : ''}.`);
  }

  #answer(id: string, param: string): string {
    if (this.#unanswered === null || !this.#unanswered.delete(id)) {
      throw invalid(param, this.#toolUseIds.has(id) ? 'this tool_use was answered already.' : 'no tool_use block in the message before has this id.');
    }
    return id;
  }

  #resultText(block: ToolResultBlock, at: string): string {
    const { content } = block;
    let text = '';
    if (typeof content === 'string') {
      text = content;
    } else if (content !== undefined) {
      for (let index = 0; index < content.length; index++) {
        const part = content[index]!;
        const piece = part.type === 'text' ? part.text : part.type === 'tool_reference' ? this.#reference(part.tool_name) : null;
        if (piece === null) {
          const where = `${at}.content.${index}`;
          throw new ApiError('invalid_content', { param: where, message: `${where}: a tool result is passed to the model as text; ${part.type} blocks are not supported in it.` });
        }
        text = index === 0 ? piece : text + BLOCK_SEPARATOR + piece;
      }
    }
    // Chat tool messages have no error flag: the model is told in the text.
    return block.is_error === true ? `Error: ${text}` : text;
  }

  #reference(name: string): string {
    this.referencedTools.add(name);
    return `Tool loaded: ${name}`;
  }

  #image(block: ImageBlock, at: string): ChatPart {
    if (!this.#takesImages) {
      throw new ApiError('invalid_content', { param: at, message: `${at}: image blocks need a model that takes images; this model reads text only.` });
    }
    const { source } = block;
    if (source.type === 'url' && source.url !== undefined) return { type: 'image_url', image_url: { url: source.url } };
    if (source.type === 'base64') {
      if (source.media_type === undefined) throw new ApiError('missing_required_parameter', { param: `${at}.source.media_type`, message: `${at}.source.media_type: Field required.` });
      if (source.data === undefined) throw new ApiError('missing_required_parameter', { param: `${at}.source.data`, message: `${at}.source.data: Field required.` });
      return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
    }
    if (source.type === 'url') throw new ApiError('missing_required_parameter', { param: `${at}.source.url`, message: `${at}.source.url: Field required.` });
    throw invalid(`${at}.source.type`, 'images from the Files API are not supported; send them as base64 or a URL.');
  }
}

function systemText(content: string | readonly ContentBlock[], at: string): string {
  if (typeof content === 'string') return content;
  for (let index = 0; index < content.length; index++) {
    if (content[index]!.type !== 'text') throw invalid(`${at}.content.${index}`, 'a system message holds text blocks only.');
  }
  return joinText(content as readonly TextBlock[]);
}

function joinText(blocks: readonly TextBlock[]): string {
  let text = '';
  for (let index = 0; index < blocks.length; index++) text = index === 0 ? blocks[index]!.text : text + BLOCK_SEPARATOR + blocks[index]!.text;
  return text;
}

function invalid(param: string, what: string): ApiError {
  return new ApiError('invalid_value', { param, message: `${param}: ${what}` });
}
