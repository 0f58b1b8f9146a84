/** One readable line for a tool step: a Markdown table as "3 rows × 2 columns: a, b". */
const FOOTER = /^\(([\d,]+) rows?(?:; first [\d,]+ shown)?\)$/;

export function summarizeResult(text: string, limit = 160): string {
  const lines = (text ?? '').trim().split('\n').map(l => l.trim());
  if (!lines.length || !lines[0]) {
    return '';
  }
  let line = lines[0];
  if (line.startsWith('|') && line.endsWith('|')) {
    const columns = line.replace(/^\||\|$/g, '').split('|').map(c => c.trim());
    const footer = [...lines].reverse().map(l => FOOTER.exec(l)).find(m => m);
    const rows = footer ? Number(footer[1].replace(/,/g, '')) : Math.max(0, lines.filter(l => l.startsWith('|')).length - 2);
    line = `${rows.toLocaleString('en')} row${rows === 1 ? '' : 's'} × ${columns.length} column${columns.length === 1 ? '' : 's'}: ${columns.join(', ')}`;
  } else if (lines[lines.length - 1] === '(1 row)' && lines.slice(0, -1).every(l => l.includes(' = '))) {
    line = `1 row: ${lines.slice(0, -1).join(', ')}`;
  }
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** The SQL a tool call ran, when it has one (shown on demand under the step). */
export function sqlOf(args: unknown): string | null {
  if (args && typeof args === 'object' && typeof (args as { sql?: unknown }).sql === 'string') {
    return (args as { sql: string }).sql;
  }
  return null;
}
