// The smallest bot: it says back what it was told.
//   AUTOHUB_TURN=examples/echo.mjs npm start
//
// `request.text` has the bot's own mention taken out; what the function
// returns is posted in the thread (a string, or an async iterable of chunks,
// streamed as they come). Types: lib/turn/types.ts.

/** @type {import('../lib/turn/types.js').TakeTurn} */
export function takeTurn(request) {
  const text = request.text.trim();
  const files =
    request.files.length > 0
      ? ` (and ${request.files.length} file${request.files.length === 1 ? '' : 's'}: ${request.files.map((f) => f.name).join(', ')})`
      : '';
  return text === '' && files === '' ? 'You mentioned me, but said nothing.' : `You said: ${text}${files}`;
}
