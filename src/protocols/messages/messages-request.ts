// A Messages API request body after validation (messages-request-schema.ts): the shapes it admits.

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

export interface ImageBlock {
  readonly type: 'image';
  readonly source: { readonly type: 'base64' | 'url' | 'file'; readonly media_type?: string; readonly data?: string; readonly url?: string; readonly file_id?: string };
}

export interface DocumentBlock {
  readonly type: 'document';
}

export interface ToolReferenceBlock {
  readonly type: 'tool_reference';
  readonly tool_name: string;
}

export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: string | readonly (TextBlock | ImageBlock | DocumentBlock | ToolReferenceBlock)[];
  readonly is_error?: boolean;
}

export interface ThinkingBlock {
  readonly type: 'thinking' | 'redacted_thinking';
}

export type ContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock;

export interface MessageParam {
  readonly role: 'user' | 'assistant' | 'system';
  readonly content: string | readonly ContentBlock[];
}

export interface ToolParam {
  readonly type?: 'custom' | null;
  readonly name: string;
  readonly description?: string;
  readonly input_schema: Readonly<Record<string, unknown>>;
  readonly defer_loading?: boolean;
  readonly strict?: boolean;
}

export type ToolChoiceParam =
  | { readonly type: 'auto' | 'any'; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: 'tool'; readonly name: string; readonly disable_parallel_tool_use?: boolean }
  | { readonly type: 'none' };

export interface MessagesBody {
  readonly model: string;
  /** Absent only on count_tokens. */
  readonly max_tokens?: number;
  readonly messages: readonly MessageParam[];
  readonly system?: string | readonly TextBlock[];
  readonly stop_sequences?: readonly string[];
  readonly stream?: boolean;
  readonly temperature?: number;
  readonly top_p?: number;
  readonly top_k?: number | null;
  readonly tools?: readonly ToolParam[];
  readonly tool_choice?: ToolChoiceParam;
  readonly thinking?: { readonly type: string; readonly display?: string | null } | null;
  readonly output_config?: { readonly effort?: string | null; readonly format?: { readonly type: 'json_schema'; readonly schema: Readonly<Record<string, unknown>> } | null };
}
