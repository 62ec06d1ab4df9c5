// Highlighting of an envelope: the header block (comments, `Name: value` headers whose
// values are templates, `$name = SELECTOR` selectors, `name=WORD` assignments) up to the
// first blank line, then the script, highlighted as shell.
import { HighlightStyle, StreamLanguage } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { shell } from "@codemirror/legacy-modes/mode/shell";

const copyShell = (state) => {
  const copy = {};
  for (const [k, v] of Object.entries(state)) copy[k] = Array.isArray(v) ? v.slice() : v;
  return copy;
};

// `$name`, `${...}` in a template; the rest of it is text.
function template(stream) {
  if (stream.match(/^\$\{[^}]*\}?/) || stream.match(/^\$[A-Za-z_][A-Za-z0-9_]*/)) return "variableName";
  stream.next();
  stream.eatWhile(/[^$]/);
  return "string";
}

function header(stream, state) {
  if (stream.sol()) {
    state.rest = null;
    if (stream.match(/^#.*/)) return "comment";
    if (stream.match(/^[ \t]+/)) {
      state.rest = "template"; // a folded line goes on with the value
      return null;
    }
    if (stream.match(/^\$[A-Za-z_][A-Za-z0-9_]*/)) {
      state.rest = "selector";
      return "def";
    }
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*(?==)/)) {
      state.rest = "template";
      return "def";
    }
    if (stream.match(/^[A-Za-z0-9-]+(?=:)/)) {
      state.rest = "header";
      return "propertyName";
    }
    stream.skipToEnd();
    return "invalid";
  }
  switch (state.rest) {
    case "header":
      stream.next(); // the colon
      state.rest = "template";
      return "punctuation";
    case "selector":
      if (stream.eatSpace()) return null;
      if (stream.eat("=")) {
        state.rest = "selector-text";
        return "operator";
      }
      stream.skipToEnd();
      return "invalid";
    case "selector-text":
      stream.skipToEnd();
      return "string.special";
    case "template":
      if (stream.peek() === "=") {
        stream.next();
        return "operator";
      }
      return template(stream);
    default:
      stream.skipToEnd();
      return null;
  }
}

export const envelopeLanguage = StreamLanguage.define({
  name: "envelope",
  startState: () => ({ inHeaders: true, rest: null, shell: shell.startState() }),
  copyState: (s) => ({ inHeaders: s.inHeaders, rest: s.rest, shell: copyShell(s.shell) }),
  blankLine: (state) => {
    state.inHeaders = false;
  },
  token: (stream, state) => (state.inHeaders ? header(stream, state) : shell.token(stream, state.shell)),
  languageData: { commentTokens: { line: "#" } },
});

// The header block's parts, on top of the default style (which colours the script).
export const envelopeHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "#708", fontWeight: "bold" },
  { tag: tags.definition(tags.variableName), color: "#00c", fontWeight: "bold" },
  { tag: tags.variableName, color: "#05a" },
  { tag: tags.special(tags.string), color: "#a50" },
  { tag: tags.comment, color: "#777", fontStyle: "italic" },
  { tag: tags.invalid, color: "#c00", textDecoration: "underline wavy" },
]);
