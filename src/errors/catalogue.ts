// The one error catalogue: every error the service answers with is one of these codes.
// Clients branch on the HTTP status and `error.code`; messages may change.

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'service_unavailable';

export interface ErrorEntry {
  readonly status: number;
  readonly type: ErrorType;
  readonly message: string;
}

export const ERROR_CATALOGUE = {
  malformed_request: { status: 400, type: 'invalid_request_error', message: 'The request framing is ambiguous (Content-Length or Transfer-Encoding).' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  invalid_encoding: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid UTF-8.' },
  invalid_content_type: { status: 400, type: 'invalid_request_error', message: 'Content-Type must be application/json.' },
  invalid_body: { status: 400, type: 'invalid_request_error', message: 'The request body must be a JSON object.' },
  nesting_too_deep: { status: 400, type: 'invalid_request_error', message: 'The request body is nested too deeply.' },
  duplicate_key: { status: 400, type: 'invalid_request_error', message: 'The request body repeats a key.' },
  forbidden_key: { status: 400, type: 'invalid_request_error', message: 'The request body uses a reserved key.' },
  missing_required_parameter: { status: 400, type: 'invalid_request_error', message: 'A required parameter is missing.' },
  invalid_type: { status: 400, type: 'invalid_request_error', message: 'A parameter has the wrong type.' },
  invalid_value: { status: 400, type: 'invalid_request_error', message: 'A parameter has an invalid value.' },
  unknown_parameter: { status: 400, type: 'invalid_request_error', message: 'The request has an unrecognized parameter.' },
  unsupported_parameter: { status: 400, type: 'invalid_request_error', message: 'A parameter is not supported by this model.' },
  empty_messages: { status: 400, type: 'invalid_request_error', message: 'messages must be a non-empty array.' },
  invalid_role: { status: 400, type: 'invalid_request_error', message: 'A message has an unsupported role.' },
  invalid_content: { status: 400, type: 'invalid_request_error', message: 'A message content must be a string.' },
  context_length_exceeded: { status: 400, type: 'invalid_request_error', message: "The request exceeds the model's context length." },
  upstream_bad_request: { status: 400, type: 'invalid_request_error', message: 'The model server rejected the request.' },
  invalid_link: { status: 400, type: 'invalid_request_error', message: 'This link is not valid: it was used already, has expired, or was copied incompletely.' },
  batch_too_large: { status: 400, type: 'invalid_request_error', message: 'A JSON-RPC batch holds too many messages.' },
  email_unavailable: { status: 400, type: 'invalid_request_error', message: 'This email address cannot be used to sign up. If the account is yours, sign in.' },
  invalid_api_key: { status: 401, type: 'invalid_request_error', message: 'The API key is missing, malformed, invalid or revoked.' },
  invalid_credentials: { status: 401, type: 'authentication_error', message: 'The email address or password is not right.' },
  not_signed_in: { status: 401, type: 'authentication_error', message: 'Sign in to the dashboard first; the session is missing or has expired.' },
  account_suspended: { status: 403, type: 'permission_error', message: 'The account that owns this key is suspended.' },
  model_not_allowed: { status: 403, type: 'permission_error', message: 'This key may not use the requested model.' },
  forbidden_origin: { status: 403, type: 'permission_error', message: 'Requests from this browser origin are not allowed.' },
  csrf_failed: { status: 403, type: 'permission_error', message: 'The request did not come from the dashboard itself. Reload the page and try again.' },
  admin_required: { status: 403, type: 'permission_error', message: 'Only admins may do this.' },
  admin_key_not_allowed: { status: 403, type: 'permission_error', message: 'This is an admin key: it is accepted only on the admin API (/v1/admin/…). Use an ordinary key here.' },
  invite_required: { status: 403, type: 'permission_error', message: 'Sign-up on this service needs an invite. Ask its operator or an admin for one.' },
  key_limit_reached: { status: 403, type: 'permission_error', message: 'This account has as many keys as it may have. Revoke one it no longer needs to create another.' },
  response_storage_full: { status: 403, type: 'permission_error', message: "This account's stored responses fill the room it has for them." },
  sign_up_disabled: { status: 403, type: 'permission_error', message: 'Sign-up is turned off on this service. Ask its operator for an account.' },
  unknown_route: { status: 404, type: 'invalid_request_error', message: 'No such endpoint. API paths start with /v1.' },
  model_not_found: { status: 404, type: 'invalid_request_error', message: 'The model does not exist. GET /v1/models lists the available ones.' },
  key_not_found: { status: 404, type: 'not_found_error', message: 'No such key in this account.' },
  account_not_found: { status: 404, type: 'not_found_error', message: 'No such account.' },
  response_not_found: { status: 404, type: 'invalid_request_error', message: 'No such stored response for this account.' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'This endpoint does not accept that method.' },
  request_timeout: { status: 408, type: 'invalid_request_error', message: 'The request body did not arrive in time.' },
  client_closed: { status: 408, type: 'invalid_request_error', message: 'The client closed the connection before its request body had arrived.' },
  stream_stalled: { status: 408, type: 'invalid_request_error', message: 'The client stopped reading the stream, so it was closed.' },
  request_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', message: 'Rate limit reached for this key.' },
  budget_exceeded: { status: 429, type: 'rate_limit_error', message: 'This request could cost more than what is left of the spend budget.' },
  too_many_open_requests: { status: 429, type: 'rate_limit_error', message: 'Too many requests are open from this address at once. Wait for some to finish.' },
  sign_in_throttled: { status: 429, type: 'rate_limit_error', message: 'Too many failed sign-ins. Wait a while and try again.' },
  upstream_rate_limited: { status: 429, type: 'rate_limit_error', message: 'The model server is rate limiting requests. Retry shortly.' },
  internal_error: { status: 500, type: 'server_error', message: 'The server had an error while processing the request.' },
  engine_error: { status: 500, type: 'server_error', message: 'The model engine failed while generating the reply.' },
  upstream_error: { status: 502, type: 'server_error', message: 'The model server failed to answer.' },
  upstream_unauthorized: { status: 502, type: 'server_error', message: "The model server rejected this service's credentials; your key is fine." },
  not_ready: { status: 503, type: 'service_unavailable', message: 'The service is starting or shutting down.' },
  overloaded: { status: 503, type: 'service_unavailable', message: 'The service is overloaded. Retry shortly.' },
  shutting_down: { status: 503, type: 'service_unavailable', message: 'The service is shutting down. Retry on another instance.' },
  auth_unavailable: { status: 503, type: 'service_unavailable', message: 'Keys cannot be checked right now. Retry shortly.' },
  limiter_unavailable: { status: 503, type: 'service_unavailable', message: 'Rate limits cannot be checked right now. Retry shortly.' },
  upstream_unavailable: { status: 503, type: 'service_unavailable', message: 'Every model server for this model is failing; it is being left alone briefly. Retry shortly.' },
  upstream_timeout: { status: 504, type: 'server_error', message: 'The model server did not answer in time.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
