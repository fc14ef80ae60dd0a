// Whether an upstream's event is made of SSE lines: what any relay checks of every event before it
// interprets it, so that bytes that are not an event stream are never passed on as one.

const [COLON, LF, CR] = [58, 10, 13];

/**
 * Every line of the event is blank, a comment or a field. The first line is known to be a data
 * field when `dataFirst`: a one-line event (the usual) then costs one search for its line end.
 */
export function sseLines(text: string, dataFirst: boolean): boolean {
  for (let line = dataFirst ? text.indexOf('\n') + 1 : 0; line < text.length;) {
    const first = text.charCodeAt(line);
    if (first !== LF && first !== CR && first !== COLON && !isField(text, line)) return false;
    const end = text.indexOf('\n', line);
    if (end === -1) return true;
    line = end + 1;
  }
  return true;
}

/** The line at `at` is a field an SSE stream may carry (a line opening with a colon is a comment). */
function isField(text: string, at: number): boolean {
  return text.startsWith('data:', at) || text.startsWith('event:', at) || text.startsWith('id:', at) || text.startsWith('retry:', at);
}
