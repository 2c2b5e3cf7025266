/**
 * The operator schemas' documentation is Markdown written by ONNX and ONNX Runtime (code fences, `code`, **bold**,
 * [links](…), bullet lists, the odd table and `<br>`). It is data, never markup: this renders the subset they use
 * with DOM nodes whose text is set as text, so no schema text can add an element, an attribute or a handler. A
 * link keeps only an http(s) address and opens in a new tab without an opener; anything else stays text, an HTML
 * tag included (`<br>` alone becomes a line break, as the ML operators' docs mean it).
 */

const FENCE = /^\s*```/;
const BULLET = /^\s*[*-]\s+/;
const HEADING = /^\s*#{1,6}\s+/;
const TABLE = /^\s*\|/;
// `code`, **bold**, [text](http…), <br>: the inline forms, found left to right
const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)|<br\s*\/?>/gi;

/** Appends `text` to `parent` with its inline forms as elements (their content as text). */
export function appendInline(parent: HTMLElement, text: string): void {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index ?? 0;
    if (at > last) parent.append(text.slice(last, at));
    const [whole, code, bold, label, href] = match;
    if (code !== undefined) {
      const element = document.createElement("code");
      element.textContent = code;
      parent.append(element);
    } else if (bold !== undefined) {
      const element = document.createElement("strong");
      element.textContent = bold;
      parent.append(element);
    } else if (label !== undefined && href !== undefined) {
      const link = document.createElement("a");
      link.textContent = label;
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      parent.append(link);
    } else if (whole.toLowerCase().startsWith("<br")) parent.append(document.createElement("br"));
    last = at + whole.length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

function block(tag: string, className?: string): HTMLElement {
  const element = document.createElement(tag);
  if (className) element.className = className;
  return element;
}

/** The documentation as a fragment: paragraphs, code blocks, lists, headings, tables kept as preformatted text. */
export function renderDoc(text: string): DocumentFragment {
  const out = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let paragraph: string[] = [];
  let list: HTMLElement | null = null;
  const flush = () => {
    if (paragraph.length) {
      const p = block("p");
      appendInline(p, paragraph.join(" "));
      out.append(p);
    }
    paragraph = [];
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]); i++) code.push(lines[i]);
      const pre = block("pre", "dld-docs-code");
      pre.textContent = code.join("\n");
      out.append(pre);
    } else if (TABLE.test(line)) {
      flush();
      const rows: string[] = [];
      for (; i < lines.length && TABLE.test(lines[i]); i++) rows.push(lines[i].trim());
      i--;
      const pre = block("pre", "dld-docs-code");
      pre.textContent = rows.join("\n");
      out.append(pre);
    } else if (HEADING.test(line)) {
      flush();
      const heading = block("h4");
      appendInline(heading, line.replace(HEADING, ""));
      out.append(heading);
    } else if (BULLET.test(line)) {
      if (paragraph.length) flush();
      const ul: HTMLElement = list ?? out.appendChild(block("ul"));
      list = ul;
      const item = block("li");
      appendInline(item, line.replace(BULLET, ""));
      ul.append(item);
    } else if (!line.trim()) flush();
    else if (list && /^\s+/.test(line)) appendInline(list.lastElementChild as HTMLElement, ` ${line.trim()}`);
    else {
      list = null;
      paragraph.push(line.trim());
    }
  }
  flush();
  return out;
}
