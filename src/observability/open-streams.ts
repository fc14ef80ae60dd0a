/** SSE responses open in this process (the open-streams gauge): counted up by the stream writer when one opens, down by the HTTP server when its request is done. */
export const openStreams = { count: 0 };
