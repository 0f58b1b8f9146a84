/** Tiny DOM helpers: the panel is plain DOM inside Lumino widgets. */

export type Attrs = { [key: string]: string | number | boolean | null | undefined | EventListener };

/** Create an element: `h('button', {class: 'x', onclick: fn}, 'Label')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value as EventListener);
    } else if (key === 'class') {
      el.className = String(value);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/** Replace all children of `el`. */
export function setChildren(el: Element, ...children: Array<Node | string | null | undefined | false>): void {
  el.replaceChildren(...(children.filter(c => c !== null && c !== undefined && c !== false) as Array<Node | string>));
}

/** "2026-05-01" from an ISO timestamp (or "" when unknown). */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) {
    return '';
  }
  return iso.slice(0, 10);
}

/** "2026-05-01 14:03" from an ISO timestamp. */
export function shortDateTime(iso: string | null | undefined): string {
  if (!iso) {
    return '';
  }
  return iso.slice(0, 16).replace('T', ' ');
}

/** A button that asks for a second click before running `action` (bulk deletes). */
export function confirmButton(
  label: string,
  confirmLabel: () => string,
  action: () => void,
  attrs: Attrs = {}
): HTMLButtonElement {
  const button = h('button', { class: 'sal-button sal-danger', type: 'button', ...attrs }, label);
  let armed = false;
  let timer = 0;
  button.addEventListener('click', () => {
    if (!armed) {
      armed = true;
      button.textContent = confirmLabel();
      button.dataset.confirm = 'armed';
      timer = window.setTimeout(() => {
        armed = false;
        button.textContent = label;
        delete button.dataset.confirm;
      }, 5000);
      return;
    }
    window.clearTimeout(timer);
    armed = false;
    button.textContent = label;
    delete button.dataset.confirm;
    action();
  });
  return button;
}
